package finalizers

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// An owner in foreground deletion that waits for the stuck object (a blocking dependent) and
// that nothing in the object's spec names is the cascade reaching the object, not what holds
// its finalizer: no referent-terminating blocker, and the strip is not put first. The same owner
// named by a spec field too stays a blocker (the cleanup runs against it); an owner being
// deleted that does not wait for the object, or whose reference does not block it, is left to
// the rules as before.
func TestForegroundOwnerIsTheCascade(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		ownerFins []string
		blocks    *bool
		specRef   bool
		blocker   bool
	}{
		{"a foreground owner waiting for the object, named only as owner", []string{metav1.FinalizerDeleteDependents}, &yes, false, false},
		{"the same owner named by the spec too", []string{metav1.FinalizerDeleteDependents}, &yes, true, true},
		{"an owner being deleted with its own finalizer", []string{"policies.example.io/cleanup"}, &yes, false, true},
		{"a foreground owner the object does not block", []string{metav1.FinalizerDeleteDependents}, &no, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner := policyClusterMeta("c1", &gone, tc.ownerFins...)
			x := referentExplainer(t, now, owner)
			obj := &metav1.ObjectMeta{Name: "p", DeletionTimestamp: &gone,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "policies.example.io/v1", Kind: "PolicyCluster", Name: "c1", UID: owner.UID, BlockOwnerDeletion: tc.blocks}}}
			spec := map[string]any{"leader": int64(0)}
			if tc.specRef {
				spec["clusterRef"] = map[string]any{"name": "c1"}
			}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
			e := stalledPolicyFinalizer()
			x.applyGoingReferents(context.Background(), subject{res: testPolicy, obj: obj}, e, ownWord{obj: body, conditions: []Condition{{Type: "Ready", Status: "True"}}}, now.Add(-time.Hour))
			got := e.Finalizers[0]
			has := len(got.Blockers) > 0 && got.Blockers[0].Code == ReasonReferentTerminating
			if has != tc.blocker {
				t.Fatalf("blockers %+v: referent-terminating %v, want %v", got.Blockers, has, tc.blocker)
			}
			if !tc.blocker && (len(got.Remedies) != 1 || got.Remedies[0].Code != ReasonReadControllerLogs) {
				t.Fatalf("steps %+v, want the remover's logs untouched and no strip put first", got.Remedies)
			}
		})
	}
}
