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
