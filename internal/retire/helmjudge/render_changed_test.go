package helmjudge

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// What a gap says the candidate changes is what it changes: a new upgrade strategy is not a
// change of what the release renders from (fluxcd/d2-fleet 299d2ee), a values ConfigMap is
// named, and nothing changed says nothing.
func TestChangedText(t *testing.T) {
	release := func(spec map[string]any) *unstructured.Unstructured {
		hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
		hr.Object["spec"] = spec
		return hr
	}
	values := func(v string) *unstructured.Unstructured {
		cm := obj("v1", "ConfigMap", "x", "app-values", nil)
		cm.Object["data"] = map[string]any{"values.yaml": v}
		return cm
	}
	chart := map[string]any{"spec": map[string]any{"chart": "app", "version": "1.0.0"}}
	from := []any{map[string]any{"kind": "ConfigMap", "name": "app-values"}}
	for _, tc := range []struct {
		name       string
		base, cand map[string]any
		bobjs      []*unstructured.Unstructured
		cobjs      []*unstructured.Unstructured
		want       string
	}{
		{"strategy only", map[string]any{"chart": chart}, map[string]any{"chart": chart, "upgrade": map[string]any{"strategy": map[string]any{"name": "RetryOnFailure"}},
			"install": map[string]any{"strategy": map[string]any{"name": "RetryOnFailure"}}},
			nil, nil, "the candidate changes its spec.install and spec.upgrade"},
		{"values ConfigMap", map[string]any{"chart": chart, "valuesFrom": from}, map[string]any{"chart": chart, "valuesFrom": from},
			[]*unstructured.Unstructured{values("a: 1")}, []*unstructured.Unstructured{values("a: 2")}, "the candidate changes its valuesFrom ConfigMap x/app-values"},
		{"values ConfigMap added", map[string]any{"chart": chart, "valuesFrom": from}, map[string]any{"chart": chart, "valuesFrom": from},
			nil, []*unstructured.Unstructured{values("a: 2")}, "the candidate changes its valuesFrom ConfigMap x/app-values"},
		{"nothing", map[string]any{"chart": chart}, map[string]any{"chart": chart}, nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, cs := &side{objs: tc.bobjs}, &side{objs: tc.cobjs}
			what := changedParts(bs.parts(release(tc.base)), cs.parts(release(tc.cand)))
			got := ""
			if len(what) > 0 {
				got = changedText(what)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := changedText([]string{"a", "b", "c", "d", "e", "f"}); got != "the candidate changes its a, b, c, d and 2 more" {
		t.Errorf("six parts: %q", got)
	}
}

// A chart that cannot be had at either side is said once, not once a side, and the gap still
// says what the candidate changes.
func TestHelmDropsUnavailableOnce(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", "app", nil)
	units := []Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{hr}, Candidate: []*unstructured.Unstructured{hr}}}
	id := inventory.RefOf(hr).ID()
	unavailable := func() *rendered {
		return &rendered{err: fmt.Errorf("%w: chart app 1.0.0: its chart source HelmRepository/x/app is not declared by any tier that built", charts.ErrUnavailable)}
	}
	s := &helmSides{base: map[string]*rendered{id: unavailable()}, cand: map[string]*rendered{id: unavailable()}, changed: map[string]string{id: "the candidate changes its spec.upgrade"}}
	_, incomplete, unchecked, _ := s.helmDrops(units, nil)
	if len(incomplete) != 0 || len(unchecked) != 1 {
		t.Fatalf("incomplete %v unchecked %v, want one unchecked gap", incomplete, unchecked)
	}
	text := unchecked[0].String()
	if n := strings.Count(text, "chart not available"); n != 1 {
		t.Errorf("the unavailable chart is said %d times:\n%s", n, text)
	}
	if !strings.Contains(text, "the candidate changes its spec.upgrade, and it could not be rendered at base and candidate") {
		t.Errorf("gap does not say what changed:\n%s", text)
	}
	// Different failures at each side are both said, each once.
	s.cand[id] = &rendered{err: fmt.Errorf("%w: chart app 2.0.0", charts.ErrUnavailable)}
	_, _, unchecked, _ = s.helmDrops(units, nil)
	if len(unchecked) != 1 || !strings.Contains(unchecked[0].String(), "at base: chart not available: chart app 1.0.0") ||
		!strings.Contains(unchecked[0].String(), "at the candidate: chart not available: chart app 2.0.0") {
		t.Errorf("two failures: %v", unchecked)
	}
}
