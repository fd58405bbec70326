package charts

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// localDependencies refuses a chart directory whose Chart.yaml (or Chart.lock, which takes
// precedence) declares a local dependency, `file://<path>` or no repository, that its charts/
// does not hold. Helm's install renders without a missing dependency and says nothing, where
// source-controller builds the chart with it: its dependency manager
// (fluxcd/source-controller internal/helm/chart/dependency_manager.go, Build, collectMissing,
// addLocalDependency, secureLocalChartPath) resolves the path from the chart's directory
// within the source's root with securejoin and fails the build when no chart is there. A
// render without it would lack the dependency's objects, so the chart is refused, naming the
// dependency: the release is UNKNOWN, never judged from part of its chart.
func localDependencies(ref Ref, c *chart.Chart) error {
	reqs := c.Metadata.Dependencies
	if c.Lock != nil {
		reqs = c.Lock.Dependencies
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	for _, dep := range reqs {
		if dep == nil {
			continue
		}
		name := dep.Name
		if dep.Alias != "" {
			name = dep.Alias
		}
		if have[name] || !(dep.Repository == "" || strings.HasPrefix(dep.Repository, "file://")) {
			continue
		}
		return fmt.Errorf("%s: dependency %q (repository %q) is not in the chart's charts/ and %s: source-controller builds it into the chart from that path, or refuses the chart when it finds none, and this tool does not, so the chart is not rendered", ref, dep.Name, dep.Repository, where(ref.Dir, dep.Repository))
	}
	return nil
}

// where says where a local dependency's path leads from the chart's directory.
func where(dir, repository string) string {
	u, err := url.Parse(repository)
	if err != nil {
		return "its path cannot be read"
	}
	p := filepath.Join(dir, u.Host, u.Path)
	if rel, err := filepath.Rel(dir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "its path leads outside the chart's directory"
	}
	return "it is not loaded from its path"
}
