package finalizers

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A reference that states its own group and kind names an object that cannot exist when the
// server does not serve that type; a served type, a reference without a group, the core group,
// a field not shaped like a reference and a group whose discovery failed (a gap) claim nothing.
func TestUnservedReferencesTable(t *testing.T) {
	served := kinds.Resource{Group: "streams.example.io", Version: "v1", Resource: "brokers", Kind: "Broker", Namespaced: true}
	catalog := kinds.NewCatalog([]kinds.Resource{served}, []kinds.GroupFailure{{GroupVersion: "flaky.example.io/v1", Error: "the server is currently unable to handle the request"}})
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		missing string
		gap     bool
	}{
		{"a type no longer served, group field", map[string]any{"cluster": map[string]any{"clusterRef": map[string]any{"group": "legacy.example.io", "kind": "Cluster", "name": "main", "namespace": "streams"}}}, "Cluster.legacy.example.io/main -n streams", false},
		{"a type no longer served, apiVersion", map[string]any{"targetRef": map[string]any{"apiVersion": "legacy.example.io/v1", "kind": "Cluster", "name": "main"}}, "Cluster.legacy.example.io/main -n apps", false},
		{"a served type", map[string]any{"brokerRef": map[string]any{"apiGroup": "streams.example.io", "kind": "Broker", "name": "b"}}, "", false},
		{"no group stated", map[string]any{"clusterRef": map[string]any{"kind": "Cluster", "name": "main"}}, "", false},
		{"the core group", map[string]any{"secretRef": map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "s"}}, "", false},
		{"not shaped like a reference", map[string]any{"cluster": map[string]any{"group": "legacy.example.io", "kind": "Cluster", "name": "main"}}, "", false},
		{"a group whose discovery failed", map[string]any{"clusterRef": map[string]any{"group": "flaky.example.io", "kind": "Cluster", "name": "main"}}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			found, gaps := unservedReferences(tc.spec, catalog, "apps")
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
				if !strings.Contains(d.reason, "does not serve") || d.restorable {
					t.Errorf("%s: reason %q (restorable %v), want a type not served and nothing to create again", d.ref, d.reason, d.restorable)
				}
			}
			if strings.Join(got, ",") != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
			if (len(gaps) > 0) != tc.gap {
				t.Errorf("gaps %q, want a gap: %v", gaps, tc.gap)
			}
		})
	}
}

// Only an object that reports a failure has its references to unserved types read: a working
// one, or one still in progress, says nothing is missing.
func TestReportsFailure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		conds []Condition
		want  bool
	}{
		{"synced false with its reason", []Condition{{Type: "Synced", Status: "False", Reason: "ClusterRefInvalid"}}, true},
		{"a reconcile error", []Condition{{Type: "ReconcileError", Status: "True"}}, true},
		{"ready", []Condition{{Type: "Ready", Status: "True"}}, false},
		{"in progress", []Condition{{Type: "Drained", Status: "Unknown", Reason: "Draining"}}, false},
		{"false without a word", []Condition{{Type: "Paused", Status: "False"}}, false},
		{"none", nil, false},
	} {
		if got := reportsFailure(ownWord{conditions: tc.conds}); got != tc.want {
			t.Errorf("%s: reportsFailure = %v, want %v", tc.name, got, tc.want)
		}
	}
}
