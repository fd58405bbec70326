package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// The registry's products are found without their workload names (issue #38): a remover whose
// name shares nothing with the product, but whose role names the product's types, is still the
// one tied to the finalizer's domain, and a workload named like the product without the rights
// is not it. known.go therefore keeps no workload-name hints for these products.
func TestKnownProductsFoundWithoutNameHints(t *testing.T) {
	for _, tc := range []struct {
		product, finalizer, group, resource, kind, named string
	}{
		{"cert-manager", "finalizer.acme.cert-manager.io", "acme.cert-manager.io", "challenges", "Challenge", "cert-manager"},
		{"CloudNativePG", "cnpg.io/cleanup", "postgresql.cnpg.io", "clusters", "Cluster", "cnpg-controller-manager"},
		{"Longhorn", "longhorn.io", "longhorn.io", "volumes", "Volume", "longhorn-manager"},
		{"Velero", "restores.velero.io/external-resources-finalizer", "velero.io", "restores", "Restore", "velero"},
	} {
		t.Run(tc.product, func(t *testing.T) {
			if _, ok := lookupKnown(tc.finalizer, tc.kind); !ok {
				t.Fatalf("%s is not a registry finalizer", tc.finalizer)
			}
			remover := controllerObjects("ops", "qwzx-runner", []rbacv1.PolicyRule{
				{APIGroups: []string{tc.group}, Resources: []string{tc.resource, tc.resource + "/finalizers"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}})
			// Named like the product, may read but not update its types.
			decoy := controllerObjects("other", tc.named, []rbacv1.PolicyRule{
				{APIGroups: []string{tc.group}, Resources: []string{tc.resource}, Verbs: []string{"get", "list", "watch"}}})
			x := fakeExplainer(append(append([]runtime.Object(nil), remover...), decoy...), crdObject(tc.group, tc.resource))
			res := kinds.Resource{Group: tc.group, Version: "v1", Resource: tc.resource, Kind: tc.kind, Namespaced: true}
			o := subject{res: res, obj: &metav1.ObjectMeta{Name: "x", Namespace: "apps", Finalizers: []string{tc.finalizer}}}
			f := x.knownOrCustom(context.Background(), o, tc.finalizer)
			if len(f.Controllers) != 1 || f.Controllers[0].Object.Name != "qwzx-runner" || !f.Controllers[0].Found {
				t.Fatalf("controllers = %+v, attribution %q", f.Controllers, f.Attribution)
			}
			if c := f.Controllers[0].Confidence; c == ConfidenceNone || c == "" {
				t.Errorf("confidence %q, ties %v", c, f.Controllers[0].Ties)
			}
			if len(f.Incomplete) > 0 {
				t.Errorf("gaps: %+v", f.Incomplete)
			}
		})
	}
}

// The CSI snapshot controller is the exception: its finalizers' domain
// (snapshot.storage.kubernetes.io) is not its types' group (snapshot.storage.k8s.io), so nothing
// in the cluster ties a workload that may update snapshots to the domain. Without the registry's
// workload name it is not found; with it, it is (a medium tie, named as such).
func TestSnapshotControllerNeedsItsName(t *testing.T) {
	fin := "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection"
	res := kinds.Resource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots", Kind: "VolumeSnapshot", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "x", Namespace: "apps", Finalizers: []string{fin}}}
	rules := []rbacv1.PolicyRule{{APIGroups: []string{res.Group}, Resources: []string{"volumesnapshots"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}}
	for _, tc := range []struct {
		workload string
		found    bool
	}{{"qwzx-runner", false}, {"snapshot-controller", true}} {
		t.Run(tc.workload, func(t *testing.T) {
			x := fakeExplainer(controllerObjects("kube-system", tc.workload, rules), crdObject(res.Group, res.Resource))
			f := x.knownOrCustom(context.Background(), o, fin)
			found := len(f.Controllers) == 1 && f.Controllers[0].Found && f.Controllers[0].Object.Name == tc.workload
			if found != tc.found {
				t.Fatalf("found = %v, want %v: controllers = %+v", found, tc.found, f.Controllers)
			}
		})
	}
}
