package flux

import (
	"testing"

	fluxobject "github.com/fluxcd/cli-utils/pkg/object"
	sigsobject "sigs.k8s.io/cli-utils/pkg/object"
)

// TestParseInventoryIDAsFluxReadsIt takes Flux's fork of cli-utils, which writes and reads
// every Kustomization inventory, as the reference: each id it accepts is read to the same
// object, each it rejects is rejected. The ids with a `_` left in the name after decoding
// `__` are the ones sigs.k8s.io/cli-utils rejects (checked below, so the case stays covered).
func TestParseInventoryIDAsFluxReadsIt(t *testing.T) {
	sigsRejects := map[string]bool{
		"_system__kube_dns_rbac.authorization.k8s.io_ClusterRole":           true,
		"kube-system_system__leader_locking_rbac.authorization.k8s.io_Role": true,
		"apps_my_app_apps_Deployment":                                       true,
	}
	ids := []string{
		"headlamp_headlamp__PersistentVolumeClaim",
		"_headlamp__Namespace",
		"_system__controller__foo_rbac.authorization.k8s.io_ClusterRole",
		"flux-system_podinfo_helm.toolkit.fluxcd.io_HelmRelease",
		"", "bad", "a_b", "a__apps_",
	}
	for id := range sigsRejects {
		ids = append(ids, id)
	}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			want, wantErr := fluxobject.ParseObjMetadata(id)
			got, err := ParseInventoryID(id)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("ParseInventoryID(%q) error %v; Flux's parser: %v", id, err, wantErr)
			}
			if err == nil && (got.Namespace != want.Namespace || got.Name != want.Name || got.GroupKind != want.GroupKind) {
				t.Fatalf("ParseInventoryID(%q) = %+v; Flux's parser reads %+v", id, got, want)
			}
			if _, sigsErr := sigsobject.ParseObjMetadata(id); sigsRejects[id] && sigsErr == nil {
				t.Fatalf("sigs.k8s.io/cli-utils now accepts %q: the explicit case may be dropped", id)
			}
		})
	}
}
