package finalizers

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A running remover that fails on an object its controller never completed (a failure condition
// since before the deletion, no success, nothing recorded outside the cluster) gets the strip of
// that finalizer as a way out, after the steps that fix the cause; an object that once succeeded,
// or that records an external resource, does not.
func TestApplyNeverSucceeded(t *testing.T) {
	requested := time.Date(2022, 2, 4, 10, 0, 0, 0, time.UTC)
	before := requested.Add(-time.Hour)
	failed := Condition{Type: "ReconcileError", Status: "True", Reason: "LastReconcileCycleFailed", LastTransition: &before}
	running := func() *Explanation {
		strip := Remediation{Code: ReasonStripFinalizer, Summary: "bypass", Cost: "left behind: whatever", LastResort: true}
		return &Explanation{Finalizers: []Finalizer{{Name: "controller-mount",
			Controllers: []Controller{{Found: true, Healthy: true}},
			Remedies:    []Remediation{{Summary: "fix the reported cause"}, {Code: ReasonReadControllerLogs}},
			bypass:      &strip}}}
	}
	obj := func(status map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"path": "cluster2"}, "status": status}}
	}
	x := &Explainer{}
	cases := []struct {
		name  string
		w     ownWord
		strip bool
	}{
		{"never completed", ownWord{conditions: []Condition{failed}, obj: obj(nil)}, true},
		{"succeeded once", ownWord{conditions: []Condition{failed, {Type: "ReconcileSuccess", Status: "True"}}, obj: obj(nil)}, false},
		{"failing only since the deletion", ownWord{conditions: []Condition{{Type: "ReconcileError", Status: "True", LastTransition: &requested}}}, false},
		{"records a cloud resource", ownWord{conditions: []Condition{failed}, obj: obj(map[string]any{"instanceID": "i-0123456789abcdef0"})}, false},
		{"no failure condition", ownWord{conditions: []Condition{{Type: "Ready", Status: "False"}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := running()
			x.applyNeverSucceeded(e, c.w, requested)
			rs := e.Finalizers[0].Remedies
			got := rs[len(rs)-1].Code == ReasonStripFinalizer
			if got != c.strip {
				t.Fatalf("strip offered %v, want %v: %+v", got, c.strip, rs)
			}
			if got && (rs[0].Summary != "fix the reported cause" || !strings.Contains(rs[len(rs)-1].Summary, "ReconcileError=True (LastReconcileCycleFailed) since 2022-02-04T09:00:00Z") || !strings.HasPrefix(rs[len(rs)-1].Cost, "left behind: nothing, if")) {
				t.Errorf("steps = %+v", rs)
			}
		})
	}
}

// A workload of the finalizer's product that is left, though not its remover, keeps the
// reinstall step; an untied one does not count.
func TestProductLeft(t *testing.T) {
	if productLeft(Finalizer{Unrelated: []Controller{{Found: true}}}) {
		t.Error("an untied workload counted as the product's")
	}
	if !productLeft(Finalizer{Unrelated: []Controller{{Found: true, Ties: []string{"medium: its image names \"hubctl\""}}}}) {
		t.Error("a tied workload dropped from the candidates did not count")
	}
}
