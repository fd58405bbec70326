package retire

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fluxKs is a Flux Kustomization object named name in flux-system with the given spec fields.
func fluxKs(name string, spec map[string]any) *unstructured.Unstructured {
	o := obj("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", name, nil)
	_ = unstructured.SetNestedMap(o.Object, spec, "spec")
	return o
}

// TestMovedApplierCascades modells JiwooL0920/fleet-infra 94bb8de: the root stops declaring an
// app's Flux Kustomization and declares a category Kustomization that declares it. If the root
// prunes it first, kustomize-controller's finalizer deletes what it applied: the move is
// unsafe when that holds persistent state, and unknown when it uninstalls HelmReleases or was not
// built, never SAFE on the Kustomization object alone.
func TestMovedApplierCascades(t *testing.T) {
	root := Kustomization{Namespace: "flux-system", Name: "flux-system", Path: "./clusters/dev", Prune: true}
	category := Kustomization{Namespace: "flux-system", Name: "database", Path: "./base/database", Prune: true}
	app := Kustomization{Namespace: "flux-system", Name: "db", Path: "./apps/db", Prune: true}
	inner := Kustomization{Namespace: "flux-system", Name: "db-inner", Path: "./apps/db/inner", Prune: true}
	pg := obj("postgresql.cnpg.io/v1", "Cluster", "db", "pg", nil)
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "db", "pgadmin", nil)
	prune := map[string]any{"prune": true}
	moved := func(spec map[string]any, applied ...Unit) []Unit {
		return append([]Unit{
			{Kustomization: root, Base: []*unstructured.Unstructured{fluxKs("db", spec)}},
			{Kustomization: category, Candidate: []*unstructured.Unstructured{fluxKs("db", spec)}},
		}, applied...)
	}
	cases := []struct {
		name   string
		units  []Unit
		unsafe bool
		want   string // in the reason, or in the gap when gap is set
		gap    bool
	}{
		{"applies a database", moved(prune, Unit{Kustomization: app, Base: []*unstructured.Unstructured{pg, cm}}), true, "Cluster db/pg", false},
		{"through another Kustomization", moved(prune, Unit{Kustomization: app, Base: []*unstructured.Unstructured{fluxKs("db-inner", prune)}}, Unit{Kustomization: inner, Base: []*unstructured.Unstructured{pvc(nil)}}), true, "PersistentVolumeClaim headlamp/headlamp", false},
		{"prune off deletes nothing", moved(map[string]any{"prune": false}, Unit{Kustomization: app, Base: []*unstructured.Unstructured{pg}}), false, "", false},
		{"deletionPolicy Delete deletes", moved(map[string]any{"prune": false, "deletionPolicy": "Delete"}, Unit{Kustomization: app, Base: []*unstructured.Unstructured{pg}}), true, "Cluster db/pg", false},
		{"suspended deletes nothing", moved(map[string]any{"prune": true, "suspend": true}, Unit{Kustomization: app, Base: []*unstructured.Unstructured{pg}}), false, "", false},
		{"protected object stays", moved(prune, Unit{Kustomization: app, Base: []*unstructured.Unstructured{pvc(disabled)}}), false, "", false},
		{"stateless", moved(prune, Unit{Kustomization: app, Base: []*unstructured.Unstructured{cm}}), false, "", false},
		{"a release is not judged", moved(prune, Unit{Kustomization: app, Base: []*unstructured.Unstructured{hr}}), false, "HelmRelease db/pgadmin, whose uninstalls are not judged", true},
		{"not built", moved(prune), false, "what flux-system/db applied was not built", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := judge(t, tc.units)
			var r *Removal
			for i := range rs {
				if rs[i].Object.Name == "db" && rs[i].Object.Kind == "Kustomization" {
					r = &rs[i]
				}
			}
			if r == nil || r.Outcome != Moved {
				t.Fatalf("removals %+v: want the Kustomization moved", rs)
			}
			if r.Unsafe != tc.unsafe {
				t.Errorf("unsafe %v, want %v (reasons %q)", r.Unsafe, tc.unsafe, r.Reasons)
			}
			gaps := MoveCascades(rs)
			if tc.gap != (len(gaps) == 1) {
				t.Errorf("gaps %v, want one: %v", gaps, tc.gap)
			}
			got := strings.Join(r.Reasons, "\n")
			if tc.gap && len(gaps) > 0 {
				got = gaps[0].Error
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to name %q", got, tc.want)
			}
		})
	}
}
