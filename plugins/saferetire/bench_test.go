package saferetire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	kfloor "github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

const (
	benchTiers   = 50
	benchPerTier = 100
)

// benchRepo writes a GitOps repository with benchTiers Kustomizations of benchPerTier objects
// each (5,000 in all, one protected claim per tier), each path with its kustomization.yaml, and
// commits it; then one ConfigMap manifest is removed in the working tree. The offline gate builds
// every path at base and at candidate.
func benchRepo(b *testing.B) string {
	files := map[string]string{}
	for t := 0; t < benchTiers; t++ {
		tier := fmt.Sprintf("t%02d", t)
		files["clusters/prod/"+tier+".yaml"] = incident.KustomizationManifest("flux-system", tier, "./k8s/"+tier, true)
		files["k8s/"+tier+"/claim.yaml"] = incident.ClaimManifest(tier, "data", "kustomize.toolkit.fluxcd.io/prune: disabled")
		resources := "- claim.yaml\n"
		for i := 1; i < benchPerTier; i++ {
			name := fmt.Sprintf("cm-%03d.yaml", i)
			files["k8s/"+tier+"/"+name] = incident.ConfigMapManifest(tier, fmt.Sprintf("settings-%03d", i))
			resources += "- " + name + "\n"
		}
		files["k8s/"+tier+"/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n" + resources
	}
	r := gittest.New(b, files)
	kfile := "k8s/t07/kustomization.yaml"
	r.Write(map[string]string{"k8s/t07/cm-042.yaml": "", kfile: strings.Replace(files[kfile], "- cm-042.yaml\n", "", 1)})
	return r.Dir
}

// benchPaths are the paths the gate builds at each revision.
func benchPaths(dir string) []string {
	var out []string
	for t := 0; t < benchTiers; t++ {
		out = append(out, filepath.Join(dir, fmt.Sprintf("k8s/t%02d", t)))
	}
	return out
}

// BenchmarkOfflineGate measures `kubectl safe-retire --dry-run --offline` on 50 Kustomizations
// and 5,000 objects against building the same paths twice with the kustomize API alone, and
// reports the ratio (target ≤ 1.3).
func BenchmarkOfflineGate(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 5,000-object repository")
	}
	dir := benchRepo(b)
	paths := benchPaths(dir)
	twice := append(append([]string(nil), paths...), paths...)
	const rounds = 3
	var floor, pfloor, gate time.Duration
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		floor += kfloor.Build(twice, 1)
		pfloor += kfloor.Build(twice, runtime.GOMAXPROCS(0))
		start := time.Now()
		res := runGate(b, dir)
		gate += time.Since(start)
		if res.Verdict != "SAFE" {
			b.Fatalf("verdict %s, want SAFE (one unprotected ConfigMap removed)", res.Verdict)
		}
	}
	b.StopTimer()
	ratio := float64(gate) / float64(floor)
	b.ReportMetric(float64(floor.Milliseconds())/rounds, "floor-ms")
	b.ReportMetric(float64(gate.Milliseconds())/rounds, "gate-ms")
	b.ReportMetric(ratio, "x-of-floor")
	fmt.Printf("safe-retire offline gate, %d Kustomizations, %d objects, mean of %d runs:\n", benchTiers, benchTiers*benchPerTier, rounds)
	fmt.Printf("  kustomize build of every path twice  %6d ms  1.00x\n", floor.Milliseconds()/rounds)
	fmt.Printf("  the same on %d goroutines             %6d ms  %.2fx (the gate builds concurrently too: %.2fx of this)\n",
		runtime.GOMAXPROCS(0), pfloor.Milliseconds()/rounds, float64(pfloor)/float64(floor), float64(gate)/float64(pfloor))
	fmt.Printf("  safe-retire --dry-run --offline     %6d ms  %.2fx (target <= 1.30)\n", gate.Milliseconds()/rounds, ratio)
}

// runGate runs the offline gate through the command and decodes its result.
func runGate(b *testing.B, dir string) *saferetire.Result {
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
	code := cli.Run(context.Background(), cmd, []string{"--dry-run", "--offline", "--repo", dir, "--base", "HEAD", "-o", "json"}, &errOut)
	if code != 0 {
		b.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	var res saferetire.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		b.Fatalf("json: %v\n%s", err, out.String())
	}
	return &res
}

// BenchmarkRenderIsolation measures what rendering each chart in its own bounded process
// costs: the HelmReleases of a home-ops-style repository (app-template releases with and
// without claims, as onedr0p/home-ops writes them, a StatefulSet chart and an operator chart
// with CRDs) rendered in this process and each in a render process, and reports the ratio.
func BenchmarkRenderIsolation(b *testing.B) {
	if testing.Short() {
		b.Skip("renders charts")
	}
	load := func(c charttest.Chart) *chart.Chart {
		ch, err := loader.Load(charttest.Package(b, b.TempDir(), c))
		if err != nil {
			b.Fatal(err)
		}
		return ch
	}
	other := func(ns, name, chart string) string {
		return fmt.Sprintf("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: %s, namespace: %s}\nspec:\n  chart: {spec: {chart: %s, sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}}}\n", name, ns, chart)
	}
	app, db, widgets := load(charttest.AppTemplate("4.4.0")), load(charttest.StatefulDB("16.0.0")), load(charttest.Widgets("1.0.0"))
	type job struct {
		hr    string
		chart *chart.Chart
	}
	jobs := []job{
		{appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        accessMode: ReadWriteOnce\n        size: 15Gi\n"), app},
		{appTemplateRelease("media", "plex", "    persistence:\n      media:\n        existingClaim: media\n"), app},
		{appTemplateRelease("media", "jellyfin", "    persistence:\n      config: {size: 10Gi}\n      cache: {type: emptyDir}\n"), app},
		{appTemplateRelease("default", "echo", ""), app},
		{appTemplateRelease("home", "zigbee", "    persistence:\n      data: {size: 1Gi, retain: true}\n"), app},
		{other("db", "postgres", "statefuldb"), db},
		{other("operators", "widgets", "widgets"), widgets},
	}
	renderAll := func(inProcess bool) time.Duration {
		start := time.Now()
		for _, j := range jobs {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(j.hr), &u.Object); err != nil {
				b.Fatal(err)
			}
			if _, err := helmrender.Do(context.Background(), u, j.chart, "", nil, helmrender.Options{InProcess: inProcess}); err != nil {
				b.Fatalf("%s: %v", u.GetName(), err)
			}
		}
		return time.Since(start)
	}
	const rounds = 5
	var here, apart time.Duration
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		here += renderAll(true)
		apart += renderAll(false)
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / rounds / float64(len(jobs)) }
	ratio := float64(apart) / float64(here)
	b.ReportMetric(per(here), "in-process-ms/render")
	b.ReportMetric(per(apart), "isolated-ms/render")
	b.ReportMetric(ratio, "x-of-in-process")
	fmt.Printf("chart renders, %d HelmReleases, mean of %d rounds:\n", len(jobs), rounds)
	fmt.Printf("  in this process (memory unbounded)      %7.1f ms a render  1.00x\n", per(here))
	fmt.Printf("  each in a bounded render process        %7.1f ms a render  %.2fx\n", per(apart), ratio)
}
