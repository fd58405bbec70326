package charts_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/charts"
)

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// RefFor follows a HelmRelease to its chart through the sources the builds declare, as
// helm-controller and source-controller do: spec.chart.spec's sourceRef (namespace defaulting to
// the HelmRelease's), spec.chartRef to an OCIRepository (digest, then semver, then tag, then
// latest) or to a HelmChart and its source, and a chart path of the repository's own
// GitRepository; a source no build declares, or another repository's, is named.
func TestRefFor(t *testing.T) {
	srcs := charts.IndexSources([]*unstructured.Unstructured{
		object(t, "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: bjw-s, namespace: flux-system}\nspec: {url: https://bjw-s-labs.github.io/helm-charts}\n"),
		object(t, "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: oci, namespace: media}\nspec: {type: oci, url: oci://ghcr.io/bjw-s-labs/helm}\n"),
		object(t, "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app-template, namespace: media}\nspec: {url: oci://ghcr.io/bjw-s-labs/helm/app-template, ref: {tag: 4.4.0, semver: '>=4.0.0'}}\n"),
		object(t, "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {name: podinfo, namespace: flux-system}\nspec: {chart: podinfo, version: 6.x, sourceRef: {kind: HelmRepository, name: bjw-s}}\n"),
	})
	own := charts.Repository{Source: "GitRepository/flux-system/flux-system", Root: "/snap"}
	hr := func(spec string) *unstructured.Unstructured {
		return object(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: media}\nspec:\n"+spec)
	}
	for _, tc := range []struct{ name, spec, want, err string }{
		{"HelmRepository", "  chart: {spec: {chart: app-template, version: 4.4.0, sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}}}\n", "http chart app-template 4.4.0 from HelmRepository/flux-system/bjw-s <https://bjw-s-labs.github.io/helm-charts>", ""},
		{"oci HelmRepository, own namespace", "  chart: {spec: {chart: app-template, version: '4.x', sourceRef: {kind: HelmRepository, name: oci}}}\n", "oci chart app-template 4.x from HelmRepository/media/oci <oci://ghcr.io/bjw-s-labs/helm>", ""},
		{"OCIRepository semver before tag", "  chartRef: {kind: OCIRepository, name: app-template}\n", "oci chart app-template >=4.0.0 from OCIRepository/media/app-template <oci://ghcr.io/bjw-s-labs/helm/app-template>", ""},
		{"HelmChart", "  chartRef: {kind: HelmChart, name: podinfo, namespace: flux-system}\n", "http chart podinfo 6.x from HelmRepository/flux-system/bjw-s <https://bjw-s-labs.github.io/helm-charts>", ""},
		{"own GitRepository", "  chart: {spec: {chart: ./charts/app, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}}\n", "dir chart app (latest) from GitRepository/flux-system/flux-system", ""},
		{"another GitRepository", "  chart: {spec: {chart: ./charts/app, sourceRef: {kind: GitRepository, name: other, namespace: flux-system}}}\n", "", "comes from GitRepository/flux-system/other, which is not this repository"},
		{"undeclared source", "  chart: {spec: {chart: x, sourceRef: {kind: HelmRepository, name: gone}}}\n", "", "its chart source HelmRepository/media/gone is not declared by any tier that built"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := charts.RefFor(hr(tc.spec), srcs, own)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ref.Type + " " + ref.String(); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
