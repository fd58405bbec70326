package finalizers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// The steps for a finalizer whose remover runs and whose object names missing objects, as a
// table: when every missing object is a target (`scaleTargetRef`, `targetRefs[0]`), the strip
// comes first, no last resort, naming the target and leaving nothing on it; creating the target
// again follows, and the logs stay last. A missing object the spec only reads from, a gone
// owner, or a target beside a missing dependency keeps the order: create again first, the strip
// a last resort.
func TestTargetsGoneTable(t *testing.T) {
	ms := ObjectRef{Group: "cluster.k8s.io", Version: "v1alpha1", Resource: "machinesets", Kind: "MachineSet", Namespace: "openshift-cluster-api", Name: "worker-a"}
	web := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "shop", Name: "web"}
	cm := ObjectRef{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespace: "shop", Name: "conf"}
	o := subject{res: kinds.Resource{Group: "autoscaling.example.io", Version: "v1", Resource: "scalers", Kind: "Scaler", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "s", Namespace: "shop", Finalizers: []string{"scalers.example.io/limits"}}}
	target := func(ref ObjectRef, path string) dangling {
		return dangling{ref: ref, path: path, restorable: true, reason: path + " names it"}
	}
	for _, tc := range []struct {
		name      string
		found     []dangling
		wantFirst string
		stripLast bool
	}{
		{"scale target", []dangling{target(ms, "spec.scaleTargetRef")}, "strip-finalizer", false},
		{"indexed targets", []dangling{target(web, "spec.targetRefs[0]")}, "strip-finalizer", false},
		{"a reference read from", []dangling{target(cm, "spec.configMapRef")}, "restore-missing-object", true},
		{"a target and a dependency", []dangling{target(web, "spec.targetRef"), target(cm, "spec.configMapRef")}, "restore-missing-object", true},
		{"a gone owner", []dangling{{ref: web, owner: true, reason: "its owner is gone"}}, "strip-finalizer", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Finalizer{Name: "scalers.example.io/limits", Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "scaler"}, Found: true}},
				Remedies: []Remediation{{Code: ReasonReadControllerLogs, Summary: "read its logs"}},
				bypass:   &Remediation{Code: ReasonStripFinalizer, LastResort: true, Cost: "left behind: whatever the controller would have cleaned up outside the cluster"}}
			blockOnMissing(o, f, tc.found, nil)
			if got := string(f.Remedies[0].Code); got != tc.wantFirst {
				t.Fatalf("first step %s, want %s: %+v", got, tc.wantFirst, f.Remedies)
			}
			if last := f.Remedies[len(f.Remedies)-1]; last.Code != ReasonReadControllerLogs {
				t.Errorf("last step %s, want the logs", last.Code)
			}
			for _, r := range f.Remedies {
				if r.Code != ReasonStripFinalizer {
					continue
				}
				if r.LastResort != tc.stripLast {
					t.Errorf("strip last resort %v, want %v", r.LastResort, tc.stripLast)
				}
				if !tc.stripLast && (!strings.Contains(r.Summary, tc.found[0].ref.String()) || !strings.HasPrefix(r.Cost, "left behind: nothing on "+tc.found[0].ref.String())) {
					t.Errorf("strip does not name the gone target and what it leaves: %q / %q", r.Summary, r.Cost)
				}
			}
		})
	}
}
