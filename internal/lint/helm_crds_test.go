package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
)

// widget is a custom resource of the fixture operator chart's CRD (charttest.Widgets, modelled
// on charts that template their CRDs, e.g. cloudnative-pg's).
const widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: operators\n"

// With the chart rendered, the CRDs a HelmRelease installs count as declared by its tier: a
// custom resource in the same tier is a crd-order error (without rendering, its CRD is not
// verifiable: a note), and one in a tier that depends on
// it is fine. A HelmRelease whose chart is not available is listed as not rendered.
func TestChartCRDsRendered(t *testing.T) {
	dir := t.TempDir()
	charttest.Package(t, dir, charttest.Widgets("1.0.0"))
	p := newPlatform()
	p["infra/platform/widgets.yaml"] = hr("widgets", "operators", "widgets", "      version: 1.0.0\n") + "---\n" + widget
	p["infra/platform/repo.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n"
	p.replace(t, "infra/platform/kustomization.yaml", "  - cluster-vars.yaml", "  - cluster-vars.yaml\n  - widgets.yaml\n  - repo.yaml")
	p["infra/platform-config/widget.yaml"] = strings.Replace(widget, "name: w\n", "name: later\n", 1)
	p.replace(t, "infra/platform-config/kustomization.yaml", "issuer.yaml", "issuer.yaml\n  - widget.yaml")
	r := load(t, p)
	unrendered := r.RenderCRDs(context.Background(), lint.ChartCRDs{Charts: &charts.Getter{Dir: dir}})
	if len(unrendered) == 0 || unrendered[0].Op != report.OpRender || unrendered[0].Subject.Kind != "HelmRelease" ||
		!strings.Contains(strings.Join(report.GapLines(unrendered), "\n"), "HelmRelease cert-manager/cert-manager (Kustomization flux-system/platform): chart not available") {
		t.Errorf("unrendered: %v", unrendered)
	}
	var hits []string
	for _, f := range lint.Run(r) {
		if f.Rule == "crd-order" && strings.Contains(f.Object, "Widget") {
			hits = append(hits, string(f.Severity)+" "+f.Message)
		}
	}
	if len(hits) != 1 || !strings.HasPrefix(hits[0], "error Widget operators/w") || !strings.Contains(hits[0], "HelmRelease operators/widgets (its rendered chart)") {
		t.Fatalf("crd-order on Widgets: %v", hits)
	}

	// A bootstrap helmfile that installs the same chart installs its CRDs before Flux starts:
	// the rendered chart tells which, and the Widget in the same tier is fine.
	p["bootstrap/helmfile.d/00-crds.yaml"] = "releases:\n  - name: widgets\n    namespace: operators\n    chart: oci://charts.example.com/widgets\n    version: 1.0.0\n"
	r = load(t, p)
	r.RenderCRDs(context.Background(), lint.ChartCRDs{Charts: &charts.Getter{Dir: dir}})
	for _, f := range lint.Run(r) {
		if f.Rule == "crd-order" && strings.Contains(f.Object, "Widget") {
			t.Errorf("with the bootstrap helmfile: %s %s", f.Severity, f.Message)
		}
	}
}
