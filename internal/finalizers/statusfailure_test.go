package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A stalled remover's finalizer leads with what the object's own status says of its last
// attempt when a state or phase names a failure (its message quoted, from status.message or
// else from status.lastOperation, in the stall's evidence too); a status that names no failure, or a remover that is not stalled, changes nothing.
func TestApplyStatusFailure(t *testing.T) {
	remover := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "fed", Name: "fed-controller"}
	for _, tc := range []struct {
		name    string
		status  map[string]any
		stalled bool
		want    string // in the first step; "" for no new step
	}{
		{"state FAILED with a message", map[string]any{"state": "FAILED", "message": "failed to get client for cluster use1"}, true,
			`status.state FAILED, status.message "failed to get client for cluster use1"`},
		{"phase Error without a message", map[string]any{"phase": "Error"}, true, "status.phase Error. Fix what it names"},
		{"the message of the last operation", map[string]any{"state": "Error", "lastOperation": map[string]any{"operation": "secret with label example.io/name=a1 access secret not found"}}, true,
			`status.state Error, status.lastOperation.operation "secret with label example.io/name=a1 access secret not found"`},
		{"the description of the last operation", map[string]any{"phase": "Failed", "lastOperation": map[string]any{"description": "infrastructure credentials invalid", "state": "Failed"}}, true,
			`status.phase Failed, status.lastOperation.description "infrastructure credentials invalid"`},
		{"status.message before the last operation", map[string]any{"state": "Error", "message": "quota exceeded", "lastOperation": map[string]any{"operation": "older"}}, true,
			`status.state Error, status.message "quota exceeded"`},
		{"a state that names no failure", map[string]any{"state": "Stale", "message": "no target"}, true, ""},
		{"a phase that is fine", map[string]any{"phase": "Ready"}, true, ""},
		{"the remover is not stalled", map[string]any{"state": "FAILED"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Finalizer{Name: "fed.example.io/finalizer",
				Controllers: []Controller{{Object: remover, Found: true, Healthy: true}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "read its logs"}, {Code: ReasonStripFinalizer, LastResort: true, Summary: "strip"}}}
			if tc.stalled {
				f.Stalled = &Stall{Remover: remover, Evidence: []string{"no work on the object"}}
			}
			e := &Explanation{Finalizers: []Finalizer{f}}
			applyStatusFailure(e, ownWord{obj: &unstructured.Unstructured{Object: map[string]any{"status": tc.status}}})
			got := e.Finalizers[0]
			if tc.want == "" {
				if len(got.Remedies) != 2 || (got.Stalled != nil && len(got.Stalled.Evidence) != 1) {
					t.Fatalf("steps %q changed, want them as they were", remedySummariesOf(got))
				}
				return
			}
			if len(got.Remedies) != 3 || got.Remedies[0].Code != ReasonFixStatusFailure || !strings.Contains(got.Remedies[0].Summary, tc.want) || !strings.Contains(got.Remedies[0].Summary, "fed-controller") {
				t.Fatalf("first step %q, want one quoting %q", remedySummariesOf(got), tc.want)
			}
			if got.Remedies[1].Code != ReasonReadControllerLogs || !strings.HasPrefix(got.Stalled.Evidence[0], "its own status records a failure") {
				t.Fatalf("steps %q, evidence %q: want the status first, then the logs", remedySummariesOf(got), got.Stalled.Evidence)
			}
		})
	}
}

func remedySummariesOf(f Finalizer) []string {
	var out []string
	for _, r := range f.Remedies {
		out = append(out, r.Summary)
	}
	return out
}
