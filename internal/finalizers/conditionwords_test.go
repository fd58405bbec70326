package finalizers

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Both readers of status.conditions take an entry's words alike: statusOf adds the transition
// time and drops entries without a type; unstructuredConditions keeps every entry as written.
func TestConditionWords(t *testing.T) {
	obj := map[string]any{"status": map[string]any{"phase": "Deleting", "conditions": []any{
		map[string]any{"type": "Ready", "status": "False", "reason": "CleanupFailed", "message": "bucket not empty", "lastTransitionTime": "2026-12-03T07:00:00+01:00"},
		map[string]any{"status": "True", "reason": int64(5)},
		"not a condition",
	}}}
	want := Condition{Type: "Ready", Status: "False", Reason: "CleanupFailed", Message: "bucket not empty"}

	all, found, err := unstructuredConditions(obj)
	if err != nil || !found || len(all) != 2 || all[0] != want || all[1] != (Condition{Status: "True"}) {
		t.Errorf("unstructuredConditions = %+v, %v, %v", all, found, err)
	}

	conds, status := statusOf(&unstructured.Unstructured{Object: obj})
	if len(conds) != 1 || conds[0].LastTransition == nil || conds[0].LastTransition.String() != "2026-12-03 06:00:00 +0000 UTC" {
		t.Fatalf("statusOf conditions = %+v", conds)
	}
	got := conds[0]
	got.LastTransition = nil
	if got != want || len(status) != 1 || status[0] != "status.phase: Deleting" {
		t.Errorf("statusOf = %+v, %v", got, status)
	}
}
