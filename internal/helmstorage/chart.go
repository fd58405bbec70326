package helmstorage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/client-go/kubernetes"
)

// DeployedChart is Deployed with the chart the release was installed from
// (Release.InstalledChart). Helm keeps the chart in the release record: its metadata,
// Chart.lock, templates, default values, values schema and files. It does not keep its
// subcharts: chart.Chart holds them in an unexported field, and Helm's storage driver encodes
// a release with encoding/json (helm/helm pkg/storage/driver/util.go encodeRelease), so they
// are dropped. Release.StoredChartIncomplete says when that matters. The chart's default
// values are decoded here (they are the chart's, needed to render it), never the release's
// own values (its config), and none is ever put in an error.
func DeployedChart(ctx context.Context, kube kubernetes.Interface, loc Location) (*Release, error) {
	return deployed(ctx, kube, loc, true)
}

// decodeChart reads the chart of the release JSON b, and only its chart.
func decodeChart(b []byte) (*chart.Chart, error) {
	var rec struct {
		Chart *chart.Chart `json:"chart"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, errors.New("its chart is not a Helm chart (JSON)")
	}
	if rec.Chart == nil || rec.Chart.Metadata == nil {
		return nil, errors.New("it holds no chart")
	}
	if err := rec.Chart.Validate(); err != nil {
		return nil, fmt.Errorf("its chart is not valid: %v", err)
	}
	return rec.Chart, nil
}

// storedChartIncomplete says why the stored chart c cannot be all of the chart that rendered
// the release's manifest and hooks, "" when nothing shows that: c declares dependencies
// (Chart.yaml dependencies, or a Chart.lock), which Helm does not store, or a manifest or hook
// document came from a subchart (its `# Source:` line names <chart>/charts/…), as a chart
// carrying subcharts in charts/ without declaring them renders.
func storedChartIncomplete(c *chart.Chart, manifest string, hooks []recordHook) string {
	var deps []string
	for _, d := range c.Metadata.Dependencies {
		if d != nil {
			deps = append(deps, d.Name)
		}
	}
	if len(deps) > 0 {
		return fmt.Sprintf("its Chart.yaml declares dependencies (%s), and Helm stores a chart without its subcharts", strings.Join(deps, ", "))
	}
	if c.Lock != nil && len(c.Lock.Dependencies) > 0 {
		return "its Chart.lock locks dependencies, and Helm stores a chart without its subcharts"
	}
	docs := []string{manifest}
	for _, h := range hooks {
		docs = append(docs, h.Manifest)
	}
	prefix := c.Name() + "/charts/"
	for _, d := range docs {
		for line := range strings.Lines(d) {
			if src, ok := strings.CutPrefix(strings.TrimSpace(line), "# Source: "); ok && strings.HasPrefix(src, prefix) {
				return "its manifest holds objects a subchart rendered (charts/), and Helm stores a chart without its subcharts"
			}
		}
	}
	return ""
}
