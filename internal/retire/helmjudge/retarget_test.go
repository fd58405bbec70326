package helmjudge

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

// A candidate that changes the release's target or chart makes helm-controller uninstall the
// old release (action.ReleaseTargetChanged): UNKNOWN, named, with the state its values declare.
func TestRetargets(t *testing.T) {
	set := func(u *unstructured.Unstructured, v any, path ...string) *unstructured.Unstructured {
		u = u.DeepCopy()
		_ = unstructured.SetNestedField(u.Object, v, path...)
		return u
	}
	base := hrAt(t, "1.2.0", "{persistence: {config: {size: 1Gi}}}")
	// monosense-io/k8s-gitops 9a483fb: spec.chart from a HelmRepository replaced by a chartRef
	// to an OCIRepository no unit declares; the message names both, never a Go map.
	toChartRef := set(base, map[string]any{"kind": "OCIRepository", "name": "cloudnative-pg", "namespace": "flux-system"}, "spec", "chartRef")
	unstructured.RemoveNestedField(toChartRef.Object, "spec", "chart")
	cases := []struct {
		name string
		cand *unstructured.Unstructured
		want string
	}{
		{"values only", set(base, int64(2), "spec", "values", "replicas"), ""},
		{"release name", set(base, "status", "spec", "releaseName"), "changes its release from x/web to x/status, so helm-controller uninstalls release x/web"},
		{"target namespace", set(base, "o11y", "spec", "targetNamespace"), "changes its release from x/web to o11y/o11y-web"},
		{"storage namespace", set(base, "helm", "spec", "storageNamespace"), "changes its storage namespace from x to helm"},
		{"chart", set(base, "gatus-sidecar", "spec", "chart", "spec", "chart"), `changes its chart from "web" to "gatus-sidecar"`},
		{"chart in place", set(set(base, "gatus-sidecar", "spec", "chart", "spec", "chart"), "InPlaceUpdate", "spec", "upgrade", "chartNameChangeStrategy"), ""},
		{"suspended", set(set(base, "status", "spec", "releaseName"), true, "spec", "suspend"), ""},
		{"chart to chartRef", toChartRef, "points its chart elsewhere (spec.chart to chartRef OCIRepository flux-system/cloudnative-pg)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(report.GapLines(Retargets([]Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{base}, Candidate: []*unstructured.Unstructured{tc.cand}}})), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.want != "" && !strings.Contains(got, "its values declare persistent state: spec.values.persistence.config") {
				t.Errorf("the declared state is not named: %q", got)
			}
		})
	}
}

// A chartRef to an OCIRepository whose URL now names another chart reinstalls the release, as
// onedr0p/home-ops cb520a3a41 ("migrate to official OCI chart") did to kromgo: the OCIRepository
// went from oci://ghcr.io/bjw-s-labs/helm/app-template to oci://ghcr.io/home-operations/charts/kromgo.
// A new tag of the same chart does not.
func TestRetargetsThroughOCIRepository(t *testing.T) {
	oci := func(url, tag string) *unstructured.Unstructured {
		o := obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "x", "kromgo", nil)
		_ = unstructured.SetNestedField(o.Object, url, "spec", "url")
		_ = unstructured.SetNestedField(o.Object, tag, "spec", "ref", "tag")
		return o
	}
	hr := hrAt(t, "1.2.0", "{}")
	unstructured.RemoveNestedField(hr.Object, "spec", "chart")
	_ = unstructured.SetNestedMap(hr.Object, map[string]any{"kind": "OCIRepository", "name": "kromgo"}, "spec", "chartRef")
	from := oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "5.0.1")
	for _, tc := range []struct {
		name string
		to   *unstructured.Unstructured
		want string
	}{
		{"another chart", oci("oci://ghcr.io/home-operations/charts/kromgo", "0.14.3"), `changes its chart from "app-template" to "kromgo"`},
		{"another tag", oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "5.0.2"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(report.GapLines(Retargets([]Unit{{Kustomization: "flux-system/apps", Base: []*unstructured.Unstructured{hr, from}, Candidate: []*unstructured.Unstructured{hr, tc.to}}})), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
