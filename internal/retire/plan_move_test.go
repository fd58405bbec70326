package retire

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
)

// TestMovePlan: an unsafe move is planned as a move, not as a prune. The object is protected
// where it is, moved with the protection, adopted by the new applier, then unprotected; it is
// never drained nor deleted by hand (before, the plan was protect, drain, remove the manifest,
// delete by hand: the last stage deleted the object the new applier was to adopt). Both the
// moved claim and the moved Flux Kustomization whose deletion would cascade (JiwooL0920/
// fleet-infra 94bb8de) get it.
func TestMovePlan(t *testing.T) {
	apps := Kustomization{Namespace: "flux-system", Name: "apps", Path: "./apps", Prune: true}
	data := Kustomization{Namespace: "flux-system", Name: "data", Path: "./data", Prune: true}
	root := Kustomization{Namespace: "flux-system", Name: "flux-system", Path: "./clusters/dev", Prune: true}
	category := Kustomization{Namespace: "flux-system", Name: "database", Path: "./base/database", Prune: true}
	app := Kustomization{Namespace: "flux-system", Name: "db", Path: "./apps/db", Prune: true}
	pg := obj("postgresql.cnpg.io/v1", "Cluster", "db", "pg", nil)
	prune := map[string]any{"prune": true}
	for _, tc := range []struct {
		name   string
		units  []Unit
		kind   string
		from   string
		to     string
		object string
	}{
		{"a claim", []Unit{{Kustomization: apps, Base: []*unstructured.Unstructured{pvc(nil)}}, {Kustomization: data, Candidate: []*unstructured.Unstructured{pvc(nil)}}},
			"PersistentVolumeClaim", "Kustomization flux-system/apps", "Kustomization flux-system/data", "persistentvolumeclaim headlamp"},
		{"a Kustomization that cascades", []Unit{
			{Kustomization: root, Base: []*unstructured.Unstructured{fluxKs("db", prune)}},
			{Kustomization: category, Candidate: []*unstructured.Unstructured{fluxKs("db", prune)}},
			{Kustomization: app, Base: []*unstructured.Unstructured{pg}},
		}, "Kustomization", "Kustomization flux-system/flux-system", "Kustomization flux-system/database", "kustomization.kustomize.toolkit.fluxcd.io db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, tc.units)
			var r *Removal
			for i := range rs {
				if rs[i].Object.Kind == tc.kind && rs[i].Outcome == Moved {
					r = &rs[i]
				}
			}
			if r == nil || !r.Unsafe {
				t.Fatalf("removals %+v: want %s moved, unsafe", rs, tc.kind)
			}
			Planner{Target: cluster.Target{Context: "prod"}}.Plan(r)
			var titles []string
			var text strings.Builder
			for _, s := range r.Plan {
				titles = append(titles, s.Title)
				text.WriteString(strings.Join(s.Do, "\n") + "\n" + strings.Join(s.Commands, "\n") + "\n" + s.Check + "\n" + s.Expect + "\n" + s.Cost + "\n")
			}
			if got := strings.Join(titles, ", "); got != "protect, move, remove the protection" {
				t.Errorf("stages %q, want protect, move, remove the protection", got)
			}
			out := text.String()
			for _, w := range []string{"add the annotation kustomize.toolkit.fluxcd.io/prune: disabled", tc.from + " drops", tc.to + " applies it and adopts it",
				"kubectl --context=prod -n flux-system get kustomization " + strings.TrimPrefix(tc.to, "Kustomization flux-system/") + " -o 'jsonpath={.status.inventory.entries[*].id}'", "never delete the object by hand"} {
				if !strings.Contains(out, w) {
					t.Errorf("plan lacks %q:\n%s", w, out)
				}
			}
			for _, not := range []string{" delete " + tc.object, "drain", "delete by hand"} {
				if strings.Contains(out, not) {
					t.Errorf("plan says %q:\n%s", not, out)
				}
			}
		})
	}
}
