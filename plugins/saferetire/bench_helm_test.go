package saferetire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	kfloor "github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// helmBenchApps is the size of the HelmRelease benchmark's repository: 100 apps, 80 of them
// HelmReleases (every fifth a Deployment), 102 paths.
const helmBenchApps = 100

// helmBench is the generated repository with HelmReleases and its revisions: earlier (the
// first app's previous image), base, one (the first app's image bumped) and two (the second
// app's bumped instead).
type helmBench struct {
	dir                     string
	layout                  kfloor.Layout
	paths                   []string
	earlier, base, one, two string
}

func appChartFiles() map[string]string {
	c := charttest.AppTemplate("4.4.0")
	files := map[string]string{"Chart.yaml": "apiVersion: v2\nname: app-template\nversion: 4.4.0\ntype: application\n"}
	for k, v := range c.Files {
		files[k] = v
	}
	return files
}

func newHelmBench(b *testing.B) *helmBench {
	hb := &helmBench{dir: b.TempDir(), layout: kfloor.Layout{DeploymentEvery: 5, Chart: appChartFiles()}}
	paths, release, _, err := kfloor.HomeOpsWith(hb.dir, helmBenchApps, hb.layout)
	if err != nil {
		b.Fatal(err)
	}
	hb.paths = paths
	g := gittest.In(b, hb.dir, map[string]string{release: kfloor.HomeOpsReleaseWith(hb.layout, "app-0000", "0.9.0")})
	hb.earlier = g.Git("rev-parse", "HEAD")
	hb.base = g.Commit("the first app's image", map[string]string{release: kfloor.HomeOpsReleaseWith(hb.layout, "app-0000", "1.0.0")})
	hb.one = g.Commit("one image bump", map[string]string{release: kfloor.HomeOpsReleaseWith(hb.layout, "app-0000", "1.1.0")})
	g.Git("checkout", "--quiet", "-B", "two", hb.base)
	other := strings.ReplaceAll(release, "app-0000", "app-0001")
	hb.two = g.Commit("another image bump", map[string]string{other: kfloor.HomeOpsReleaseWith(hb.layout, "app-0001", "1.1.0")})
	g.Git("gc", "--quiet") // packed, as a clone is
	return hb
}

// floor builds every path once with kustomize and renders every release once with Helm, in
// this process, one after another.
func (hb *helmBench) floor(b *testing.B) time.Duration {
	c, err := loader.LoadDir(filepath.Join(hb.dir, "charts", "app"))
	if err != nil {
		b.Fatal(err)
	}
	var hrs []*unstructured.Unstructured
	for i := range helmBenchApps {
		if i%hb.layout.DeploymentEvery == hb.layout.DeploymentEvery-1 {
			continue
		}
		app := fmt.Sprintf("app-%04d", i)
		text := strings.NewReplacer("${APP}", app, "${TIMEZONE}", "Etc/UTC").Replace(kfloor.HomeOpsReleaseWith(hb.layout, app, "1.0.0"))
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(text), &u.Object); err != nil {
			b.Fatal(err)
		}
		u.SetNamespace(fmt.Sprintf("ns-%03d", i/10))
		hrs = append(hrs, u)
	}
	start := time.Now()
	kfloor.Build(hb.paths, 1)
	for _, u := range hrs {
		if _, err := helmrender.Do(context.Background(), u, c, "", nil, helmrender.Options{InProcess: true}); err != nil {
			b.Fatalf("%s: %v", u.GetName(), err)
		}
	}
	return time.Since(start)
}

// gate runs the offline gate from base to cand with the caches in cacheDir ("" for none).
func (hb *helmBench) gate(b *testing.B, base, cand, cacheDir string) *saferetire.Result {
	args := []string{"--dry-run", "--offline", "--repo", hb.dir, "--base", base, "--candidate", cand, "-o", "json",
		"--build-cache", "", "--render-cache", ""}
	if cacheDir != "" {
		args[len(args)-3], args[len(args)-1] = filepath.Join(cacheDir, "builds"), filepath.Join(cacheDir, "renders")
	}
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
	if code := cli.Run(context.Background(), cmd, args, &errOut); code != 0 {
		b.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if strings.Contains(errOut.String(), "is not used") {
		b.Fatalf("the render worker measured was not used:\n%s", errOut.String())
	}
	var res saferetire.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		b.Fatalf("json: %v\n%s", err, out.String())
	}
	if res.Verdict != "SAFE" {
		b.Fatalf("verdict %s, want SAFE (an image bump)", res.Verdict)
	}
	return &res
}

// BenchmarkHelmGate measures `kubectl safe-retire --dry-run --offline` on a one-file pull
// request (an image bump of one HelmRelease) in a generated home-ops repository of 102 paths
// and 80 HelmReleases whose chart is the repository's own (no network), against building
// every path once and rendering every release once, one after another (target <= 0.25x,
// warm). Cold is with empty caches; warm with the caches an earlier gate on the same base
// (another app's bump) and the gate of the change that made the base (the same app's earlier
// bump) filled, as a CI cache restored from the base branch's runs holds them. Renders run in
// the render worker (cmd/kubeforensics-helmrender), as the installed gate's do, or in the
// executable KUBEFORENSICS_HELMRENDER_EXE names when it is set (a plugin, to compare). It prints the
// medians of helmRounds rounds, each ratio taken within its round, with the load average.
func BenchmarkHelmGate(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and renders a generated repository")
	}
	worker := os.Getenv(helmrender.WorkerExeEnv) // set: that worker is measured instead
	if worker == "" {
		worker = renderWorkerBinary(b)
		b.Setenv(helmrender.WorkerExeEnv, worker)
	}
	hb := newHelmBench(b)
	const helmRounds = 3
	var floor, none, cold, warm samples
	var last *saferetire.Result
	load0 := loadAverage()
	b.ResetTimer()
	for range helmRounds {
		floor = append(floor, measure(func() { hb.floor(b) }))
		none = append(none, measure(func() { hb.gate(b, hb.base, hb.one, "") }))
		coldDir := b.TempDir()
		cold = append(cold, measure(func() { hb.gate(b, hb.base, hb.one, coldDir) }))
		warmDir := b.TempDir()
		hb.gate(b, hb.earlier, hb.base, warmDir)
		hb.gate(b, hb.base, hb.two, warmDir)
		warm = append(warm, measure(func() { last = hb.gate(b, hb.base, hb.one, warmDir) }))
	}
	b.StopTimer()
	rc, bc := last.RenderCache, last.BuildCache
	if rc == nil || rc.FromCache != 1 || rc.Built != 1 {
		b.Fatalf("warm gate's render cache %+v, want the base's render from it and the candidate's rendered", rc)
	}
	reportRatios(b, "cold", "-x", cold, floor)
	reportRatios(b, "warm", "-x", warm, floor)
	fmt.Printf("safe-retire offline gate, one HelmRelease's image bumped, %d paths, %d HelmReleases (the repository's own chart), median of %d rounds\n",
		len(hb.paths), helmBenchApps-helmBenchApps/hb.layout.DeploymentEvery, helmRounds)
	fmt.Printf("(render worker %s) ", filepath.Base(worker))
	fmt.Printf("(load average %s at the start, %s at the end); wall time, and CPU time (user+system, render processes included), each ratio the median of the rounds':\n", load0, loadAverage())
	fmt.Printf("  %-62s %s\n", "kustomize build of every path once, Helm render of every release", floor.line(floor))
	fmt.Printf("  %-62s %s\n", "gate, no caches", none.line(floor))
	fmt.Printf("  %-62s %s\n", "gate, cold (empty caches, filled by the run)", cold.line(floor))
	fmt.Printf("  %-62s %s (target <= 0.25x)\n", fmt.Sprintf("gate, warm (renders: %d from cache, %d rendered; builds: %d, %d)", rc.FromCache, rc.Built, bc.FromCache, bc.Built), warm.line(floor))
}
