package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A failure condition that is True and carries a message is what the object's own status says of
// its last attempt; a False Ready-like condition, a True success condition, or a failure
// condition without a message says nothing here.
func TestConditionFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []Condition
		want string // "" for none
	}{
		{"Failed True with reason and message", []Condition{{Type: "Ready", Status: "True"}, {Type: "Failed", Status: "True", Reason: "DeleteFailed", Message: "deletion failed: StatusCode: 401"}},
			`condition Failed True (DeleteFailed): "deletion failed: StatusCode: 401"`},
		{"Error True without a reason", []Condition{{Type: "Error", Status: "True", Message: "quota exceeded"}}, `condition Error True: "quota exceeded"`},
		{"Failed False", []Condition{{Type: "Failed", Status: "False", Message: "old"}}, ""},
		{"Ready False", []Condition{{Type: "Ready", Status: "False", Reason: "ReconcileFailed", Message: "x"}}, ""},
		{"Failed True without a message", []Condition{{Type: "Failed", Status: "True", Reason: "DeleteFailed"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := conditionFailure(tc.cs); got != tc.want {
				t.Errorf("conditionFailure = %q, want %q", got, tc.want)
			}
		})
	}
}

// A stalled remover's finalizer leads with a failure condition of the object's own status, as it
// does with a failed state or phase.
func TestApplyStatusFailureFromConditions(t *testing.T) {
	remover := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ops", Name: "broker-operator"}
	f := Finalizer{Name: "services.example.io/finalizer", Controllers: []Controller{{Object: remover, Found: true, Healthy: true}},
		Stalled:  &Stall{Remover: remover, Evidence: []string{"no work on the object"}},
		Remedies: []Remediation{{Code: ReasonReadControllerLogs, Summary: "read its logs"}, {Code: ReasonStripFinalizer, LastResort: true, Summary: "strip"}}}
	e := &Explanation{Finalizers: []Finalizer{f}}
	w := ownWord{obj: &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{}}},
		conditions: []Condition{{Type: "Failed", Status: "True", Reason: "DeleteFailed", Message: "Binding deletion failed: StatusCode: 401 Unauthorized"}}}
	applyStatusFailure(e, w)
	got := e.Finalizers[0]
	if len(got.Remedies) != 3 || got.Remedies[0].Code != ReasonFixStatusFailure || !strings.Contains(got.Remedies[0].Summary, "StatusCode: 401 Unauthorized") {
		t.Fatalf("steps %q, want the failure condition quoted first", remedySummariesOf(got))
	}
}

// An object being deleted that the stuck object refers to is no blocker when the stuck object's
// own status records a failure that names none of those referents (it may well wait for this
// very object); a failure that names the referent, or none at all, leaves the referent the
// blocker.
func TestGoingReferentsYieldToTheObjectsOwnFailure(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	for _, tc := range []struct {
		name    string
		cs      []Condition
		blocker bool
	}{
		{"no failure recorded", nil, true},
		{"a failure that names another cause", []Condition{{Type: "Failed", Status: "True", Reason: "DeleteFailed", Message: "deletion failed: StatusCode: 401 Unauthorized"}}, false},
		{"a failure that names the referent", []Condition{{Type: "Failed", Status: "True", Reason: "DeleteFailed", Message: "cluster c1 is being deleted"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := referentExplainer(t, now, policyClusterMeta("c1", &gone, "policies.example.io/cleanup"))
			obj := &metav1.ObjectMeta{Name: "p", DeletionTimestamp: &gone}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"clusterRef": map[string]any{"name": "c1"}}}}
			e := stalledPolicyFinalizer()
			x.applyGoingReferents(context.Background(), subject{res: testPolicy, obj: obj}, e, ownWord{obj: body, conditions: tc.cs}, now.Add(-time.Hour))
			if got := len(e.Finalizers[0].Blockers) > 0; got != tc.blocker {
				t.Fatalf("blockers %+v, want a referent blocker %v", e.Finalizers[0].Blockers, tc.blocker)
			}
		})
	}
}
