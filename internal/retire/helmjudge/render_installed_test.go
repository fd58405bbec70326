package helmjudge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/helmstorage"
)

// hrAt is HelmRelease x/web installing chart web at version from HelmRepository flux-system/r,
// with values.
func hrAt(t *testing.T, version, values string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	doc := fmt.Sprintf("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: x}\nspec:\n  chart: {spec: {chart: web, version: %q, sourceRef: {kind: HelmRepository, name: r, namespace: flux-system}}}\n  values: %s\n", version, values)
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// The installed chart stands in for the declared one only when the candidate changes nothing
// but values, declares one exact version, and the installed release runs that chart at that
// version, stored whole; otherwise why says so, and a release that cannot be read is an error.
func TestInstalledFor(t *testing.T) {
	repo := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
		"metadata": map[string]any{"name": "r", "namespace": "flux-system"}, "spec": map[string]any{"url": "https://charts.example.com"}}}
	srcs := [2]map[string]*unstructured.Unstructured{ChartSources([]*unstructured.Unstructured{repo}), ChartSources([]*unstructured.Unstructured{repo})}
	cside := &side{srcs: charts.IndexSources([]*unstructured.Unstructured{repo})}
	stored := func(version, incomplete string, err error) *Releases {
		return &Releases{withChart: func(string, string) (*helmstorage.Release, error) {
			if err != nil {
				return nil, err
			}
			return &helmstorage.Release{Chart: "web", ChartVersion: version, StoredChartIncomplete: incomplete}, nil
		}}
	}
	for _, tc := range []struct {
		name      string
		base      string
		cand      *unstructured.Unstructured
		installed *Releases
		why, err  string
	}{
		{"values only", "1.2.0", hrAt(t, "1.2.0", "{a: 2}"), stored("1.2.0", "", nil), "", ""},
		{"chart changed", "1.2.0", hrAt(t, "1.3.0", "{a: 2}"), stored("1.2.0", "", nil), "the candidate changes spec.chart, not only its values", ""},
		{"range", "1.x", hrAt(t, "1.x", "{a: 2}"), stored("1.2.0", "", nil), `declares chart version "1.x", not one exact version`, ""},
		{"other installed version", "1.2.0", hrAt(t, "1.2.0", "{a: 2}"), stored("1.1.0", "", nil), "the installed release runs chart web 1.1.0 and the HelmRelease declares web 1.2.0", ""},
		{"stored without subcharts", "1.2.0", hrAt(t, "1.2.0", "{a: 2}"), stored("1.2.0", "its Chart.yaml declares dependencies (common)", nil), "is not stored whole: its Chart.yaml declares dependencies (common)", ""},
		{"unreadable", "1.2.0", hrAt(t, "1.2.0", "{a: 2}"), stored("", "", errors.New("forbidden")), "", "reading the installed release to render its chart: forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel, why, err := installedFor(hrAt(t, tc.base, "{a: 1}"), tc.cand, srcs, cside, tc.installed)
			if !strings.Contains(why, tc.why) || (tc.why == "") != (why == "") || (tc.err == "") != (err == nil) ||
				(err != nil && err.Error() != tc.err) || (tc.why == "" && tc.err == "" && rel == nil) {
				t.Fatalf("rel %v why %q err %v", rel, why, err)
			}
		})
	}
}
