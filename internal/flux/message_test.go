package flux

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFailure(t *testing.T) {
	cases := []struct {
		name string
		msg  string
		want Failure
	}{
		{"timeout on a terminating pvc",
			"health check failed after 20m0.036985668s: timeout waiting for: [PersistentVolumeClaim/headlamp/headlamp status: 'Terminating']",
			Failure{After: "20m0.036985668s", Mode: "timeout", Objects: []ObjectItem{{Kind: "PersistentVolumeClaim", Namespace: "headlamp", Name: "headlamp", Status: "Terminating"}}}},
		{"stalled with errors containing commas",
			"health check failed after 1m2s: failed early due to stalled resources: [Deployment/apps/web status: 'Failed': Progress deadline exceeded, pods: 0/3, ClusterIssuer/letsencrypt status: 'InProgress']",
			Failure{After: "1m2s", Mode: "stalled", Objects: []ObjectItem{
				{Kind: "Deployment", Namespace: "apps", Name: "web", Status: "Failed", Error: "Progress deadline exceeded, pods: 0/3"},
				{Kind: "ClusterIssuer", Name: "letsencrypt", Status: "InProgress"}}}},
		{"undetermined status",
			"health check failed after 5m0s: timeout waiting for: [can't determine status for StatefulSet/db/pg, Service/db/pg status: 'NotFound']",
			Failure{After: "5m0s", Mode: "timeout", Objects: []ObjectItem{{Kind: "StatefulSet", Namespace: "db", Name: "pg"}, {Kind: "Service", Namespace: "db", Name: "pg", Status: "NotFound"}}}},
		{"crd missing",
			`Certificate/apps/tls dry-run failed: no matches for kind "Certificate" in version "cert-manager.io/v1"`,
			Failure{MissingKinds: []MissingKind{{Kind: "Certificate", Version: "cert-manager.io/v1"}}}},
		{"waiter", "dependency 'flux-system/apps' is not ready", Failure{Dependency: "flux-system/apps"}},
		{"revision", "dependency 'flux-system/infra' revision is not up to date", Failure{Dependency: "flux-system/infra", DependencyRevision: true}},
		{"unknown text", "kustomize build failed: accumulating resources", Failure{}},
		{"empty list", "health check failed after 1s: timeout waiting for: []", Failure{After: "1s", Mode: "timeout"}},
		{"unterminated list", "health check failed after 1s: timeout waiting for: [Pod/a/b status: 'Failed'", Failure{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ParseFailure(tc.msg)); diff != "" {
				t.Fatalf("ParseFailure mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseFailure(f *testing.F) {
	f.Add("health check failed after 20m0.036985668s: timeout waiting for: [PersistentVolumeClaim/headlamp/headlamp status: 'Terminating']")
	f.Add("health check failed after 1s: failed early due to stalled resources: [Deployment/a/b status: 'Failed': x, y, Namespace/n status: 'InProgress']")
	f.Add(`no matches for kind "Certificate" in version "cert-manager.io/v1"`)
	f.Add("dependency 'a/b' revision is not up to date")
	f.Fuzz(func(t *testing.T, msg string) {
		got := ParseFailure(msg)
		for _, o := range got.Objects {
			if o.Kind == "" || o.Name == "" {
				t.Fatalf("item without kind or name from %q: %+v", msg, o)
			}
		}
		if got.Mode != "" && got.After == "" {
			t.Fatalf("mode without duration from %q", msg)
		}
	})
}
