package helmjudge

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

// TestUpgradesValuesFromContent holds the rule that values helm-controller reads through
// valuesFrom are a render input like spec.values: bupd/homelab 4d95607 scaled Immich to zero
// in the values file a configMapGenerator without a name hash turns into immich-values, the
// HelmRelease's spec unchanged, and the gate said SAFE with a warning that the chart was not
// rendered. Without the chart, such a change is UNKNOWN.
func TestUpgradesValuesFromContent(t *testing.T) {
	hr := hrAt(t, "1.2.0", "{}")
	_ = unstructured.SetNestedSlice(hr.Object, []any{map[string]any{"kind": "ConfigMap", "name": "web-values"}}, "spec", "valuesFrom")
	values := func(data string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "web-values", "namespace": "x"}, "data": map[string]any{"values.yaml": data}}}
	}
	for _, tc := range []struct {
		name       string
		base, cand []*unstructured.Unstructured
		want       string
	}{
		{"content changed", []*unstructured.Unstructured{hr, values("replicas: 1\n")}, []*unstructured.Unstructured{hr, values("replicas: 0\n")},
			"the candidate changes the values in its valuesFrom ConfigMap x/web-values, and its chart is not rendered here"},
		{"content equal", []*unstructured.Unstructured{hr, values("replicas: 1\n")}, []*unstructured.Unstructured{hr, values("replicas: 1\n")}, ""},
		{"the ConfigMap added", []*unstructured.Unstructured{hr}, []*unstructured.Unstructured{hr, values("replicas: 1\n")}, "valuesFrom ConfigMap x/web-values"},
		{"declared on neither side", []*unstructured.Unstructured{hr}, []*unstructured.Unstructured{hr}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ups, incomplete, notes := Upgrades([]Unit{{Kustomization: "flux-system/apps", Base: tc.base, Candidate: tc.cand}}, nil)
			got := strings.Join(report.GapLines(incomplete), "\n")
			if len(ups) > 0 || len(notes) > 0 || (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("upgrades %d, notes %v, incomplete %q; want %q", len(ups), notes, got, tc.want)
			}
		})
	}
}

// TestUpgradesValuesFromKey holds that a release reads one key of its valuesFrom object:
// ionfury/homelab a62f1085 changed home-assistant.yaml of the shared cluster-values ConfigMap
// (one key per release, from a configMapGenerator) and every one of the 40 releases that read
// the ConfigMap was UNKNOWN, each for a key it does not read.
func TestUpgradesValuesFromKey(t *testing.T) {
	hr := hrAt(t, "1.2.0", "{}")
	_ = unstructured.SetNestedSlice(hr.Object, []any{map[string]any{"kind": "ConfigMap", "name": "shared", "valuesKey": "web.yaml"}}, "spec", "valuesFrom")
	byDefault := hrAt(t, "1.2.0", "{}")
	_ = unstructured.SetNestedSlice(byDefault.Object, []any{map[string]any{"kind": "ConfigMap", "name": "shared"}}, "spec", "valuesFrom")
	shared := func(data map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "shared", "namespace": "x"}, "data": data}}
	}
	for _, tc := range []struct {
		name       string
		hr         *unstructured.Unstructured
		base, cand map[string]any
		want       string
	}{
		{"its key changed", hr, map[string]any{"web.yaml": "a: 1", "db.yaml": "b: 1"}, map[string]any{"web.yaml": "a: 2", "db.yaml": "b: 1"}, "valuesFrom ConfigMap x/shared"},
		{"another key changed", hr, map[string]any{"web.yaml": "a: 1", "db.yaml": "b: 1"}, map[string]any{"web.yaml": "a: 1", "db.yaml": "b: 2"}, ""},
		{"its key added", hr, map[string]any{"db.yaml": "b: 1"}, map[string]any{"web.yaml": "a: 1", "db.yaml": "b: 1"}, "valuesFrom ConfigMap x/shared"},
		{"values.yaml by default", byDefault, map[string]any{"values.yaml": "a: 1"}, map[string]any{"values.yaml": "a: 2"}, "valuesFrom ConfigMap x/shared"},
		{"values.yaml by default, another key changed", byDefault, map[string]any{"values.yaml": "a: 1", "web.yaml": "a: 1"}, map[string]any{"values.yaml": "a: 1", "web.yaml": "a: 2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{tc.hr, shared(tc.base)}, Candidate: []*unstructured.Unstructured{tc.hr, shared(tc.cand)}}}
			_, incomplete, _ := Upgrades(units, nil)
			got := strings.Join(report.GapLines(incomplete), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("incomplete %q; want %q", got, tc.want)
			}
			bs, cs := &side{objs: []*unstructured.Unstructured{shared(tc.base)}}, &side{objs: []*unstructured.Unstructured{shared(tc.cand)}}
			what := changedParts(bs.parts(tc.hr), cs.parts(tc.hr))
			if (tc.want == "") != (len(what) == 0) {
				t.Errorf("render inputs changed: %v; want a change: %v", what, tc.want != "")
			}
		})
	}
}
