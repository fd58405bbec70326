package finalizers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// The deleted Cluster that owned an Addon and that its spec.cluster names (kubermatic#4619) is
// found missing twice: as the gone owner and through the field. It is the owner, which cannot come
// back as it was: no "create it again" is offered through the field, and the strip names it once.
// A missing object that is only referenced keeps its step.
func TestGoneOwnerNamedInSpecIsNotRestored(t *testing.T) {
	cluster := ObjectRef{Group: "kubermatic.k8s.io", Version: "v1", Resource: "clusters", Kind: "Cluster", Name: "bfxz9tk4jh"}
	secret := ObjectRef{Version: "v1", Resource: "secrets", Kind: "Secret", Namespace: "cluster-x", Name: "creds"}
	o := subject{res: kinds.Resource{Group: "kubermatic.k8s.io", Version: "v1", Resource: "addons", Kind: "Addon", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "canal", Namespace: "cluster-x", Finalizers: []string{"cleanup-manifests"}}}
	for _, tc := range []struct {
		name        string
		found       []dangling
		wantRestore int
	}{
		{"owner and spec field", []dangling{
			{ref: cluster, owner: true, inSpec: true, reason: "its owner no longer exists"},
			{ref: cluster, path: "spec.cluster", restorable: true, reason: "spec.cluster names it"},
		}, 0},
		{"spec field alone", []dangling{{ref: secret, path: "spec.credentialsSecret", restorable: true, reason: "spec names it"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Finalizer{Name: "cleanup-manifests", Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "kubermatic", Name: "controller-manager"}, Found: true}},
				bypass: &Remediation{Code: ReasonStripFinalizer, LastResort: true}}
			blockOnMissing(o, f, tc.found, nil)
			restores := 0
			for _, r := range f.Remedies {
				if r.Code == ReasonRestoreMissingObject {
					restores++
				}
				if r.Code == ReasonStripFinalizer && strings.Count(r.Summary, tc.found[0].ref.String()) != 1 {
					t.Errorf("strip names %s other than once: %q", tc.found[0].ref.String(), r.Summary)
				}
			}
			if restores != tc.wantRestore {
				t.Fatalf("restore steps = %d, want %d: %+v", restores, tc.wantRestore, f.Remedies)
			}
		})
	}
}
