package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// An object the stuck object refers to (by a spec reference, a `clusterRef` to the group's one
// cluster kind, or as its owner) that is itself being deleted holds a running remover's
// finalizer: a blocker, the strip first and the logs last, and the cycle named when the
// referent's foreground deletion waits for the stuck object. A referent that is not being
// deleted, or a deletion younger than the stall grace period, holds nothing.
func TestGoingReferents(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	yes := true
	referent := func(name string, deleting bool, fin ...string) *metav1.PartialObjectMetadata {
		if deleting {
			return policyClusterMeta(name, &gone, fin...)
		}
		return policyClusterMeta(name, nil, fin...)
	}
	for _, tc := range []struct {
		name      string
		referent  *metav1.PartialObjectMetadata
		owned     bool
		requested time.Time
		want      string // the blocker's reason contains it; "" for no blocker
		cycle     bool
	}{
		{"the referent is not being deleted", referent("c1", false), false, now.Add(-time.Hour), "", false},
		{"the referent is being deleted", referent("c1", true, "policies.example.io/cleanup"), false, now.Add(-time.Hour), "spec.clusterRef names policyclusters.policies.example.io/c1, which is itself being deleted", false},
		{"its foreground deletion waits for the object", referent("c1", true, metav1.FinalizerDeleteDependents), true, now.Add(-time.Hour), "metadata.ownerReferences and spec.clusterRef name policyclusters.policies.example.io/c1", true},
		{"the deletion is younger than the grace period", referent("c1", true), false, now.Add(-time.Minute), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := referentExplainer(t, now, tc.referent)
			obj := &metav1.ObjectMeta{Name: "p", DeletionTimestamp: &gone}
			if tc.owned {
				obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: "policies.example.io/v1", Kind: "PolicyCluster", Name: "c1", UID: tc.referent.UID, BlockOwnerDeletion: &yes}}
			}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"clusterRef": map[string]any{"name": "c1"}}}}
			e := stalledPolicyFinalizer()
			x.applyGoingReferents(context.Background(), subject{res: testPolicy, obj: obj}, e, ownWord{obj: body, conditions: []Condition{{Type: "Ready", Status: "True"}}}, tc.requested)
			got := e.Finalizers[0]
			if tc.want == "" {
				if len(got.Blockers) > 0 {
					t.Fatalf("blockers %v, want none", got.Blockers)
				}
				return
			}
			if len(got.Blockers) != 1 || got.Blockers[0].Code != ReasonReferentTerminating || !strings.Contains(got.Blockers[0].Reason, tc.want) {
				t.Fatalf("blockers %+v, want one %s whose reason says %q", got.Blockers, ReasonReferentTerminating, tc.want)
			}
			if len(got.Remedies) != 2 || got.Remedies[0].Code != ReasonStripFinalizer || got.Remedies[1].Code != ReasonReadControllerLogs {
				t.Fatalf("steps %+v, want the strip first and the logs last", got.Remedies)
			}
			if cyc := strings.Contains(got.Remedies[0].Summary, "neither finishes"); cyc != tc.cycle {
				t.Errorf("strip %q: names the cycle %v, want %v", got.Remedies[0].Summary, cyc, tc.cycle)
			}
		})
	}
}
