package fluxchain_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	kfloor "github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

const (
	lintTiers   = 50
	lintPerTier = 100
)

// lintRepo writes a repository whose entry clusters/prod declares lintTiers Kustomizations in
// a chain of dependencies, each path holding lintPerTier ConfigMaps (5,000 objects in all).
func lintRepo(b *testing.B) string {
	files := map[string]string{}
	entry := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
	for t := 0; t < lintTiers; t++ {
		tier := fmt.Sprintf("t%02d", t)
		ks := incident.KustomizationManifest("flux-system", tier, "./k8s/"+tier, true)
		if t > 0 {
			ks += fmt.Sprintf("  dependsOn:\n  - name: t%02d\n", t-1)
		}
		files["clusters/prod/"+tier+".yaml"] = ks
		entry += "- " + tier + ".yaml\n"
		resources := ""
		for i := 0; i < lintPerTier; i++ {
			name := fmt.Sprintf("cm-%03d.yaml", i)
			files["k8s/"+tier+"/"+name] = incident.ConfigMapManifest(tier, fmt.Sprintf("settings-%03d", i))
			resources += "- " + name + "\n"
		}
		files["k8s/"+tier+"/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n" + resources
	}
	files["clusters/prod/kustomization.yaml"] = entry
	return gittest.New(b, files).Dir
}

// BenchmarkRepoLint measures `flux-chain --repo` on 50 Kustomizations and 5,000 objects against
// building every path once (the entry and the 50 tiers) with the kustomize API alone, and
// reports the ratio (target ≤ 1.3).
func BenchmarkRepoLint(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 5,000-object repository")
	}
	dir := lintRepo(b)
	paths := []string{filepath.Join(dir, "clusters/prod")}
	for t := 0; t < lintTiers; t++ {
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("k8s/t%02d", t)))
	}
	const rounds = 3
	var floor, pfloor, lint time.Duration
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		floor += kfloor.Build(paths, 1)
		pfloor += kfloor.Build(paths, runtime.GOMAXPROCS(0))
		start := time.Now()
		var out, errOut bytes.Buffer
		streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
		code := cli.Run(context.Background(), fluxchain.NewCmdFluxChain(streams), []string{"--repo", dir, "--path", "clusters/prod", "-o", "json"}, &errOut)
		lint += time.Since(start)
		if code != 0 || !strings.Contains(out.String(), `"t49"`) {
			b.Fatalf("lint exit %d\n%s\n%s", code, errOut.String(), out.String()[:min(out.Len(), 2000)])
		}
	}
	b.StopTimer()
	ratio := float64(lint) / float64(floor)
	b.ReportMetric(float64(floor.Milliseconds())/rounds, "floor-ms")
	b.ReportMetric(float64(lint.Milliseconds())/rounds, "lint-ms")
	b.ReportMetric(ratio, "x-of-floor")
	fmt.Printf("flux-chain --repo, %d Kustomizations, %d objects, mean of %d runs:\n", lintTiers, lintTiers*lintPerTier, rounds)
	fmt.Printf("  kustomize build of every path once  %6d ms  1.00x\n", floor.Milliseconds()/rounds)
	fmt.Printf("  the same on %d goroutines            %6d ms  %.2fx (flux-chain builds concurrently too: %.2fx of this)\n",
		runtime.GOMAXPROCS(0), pfloor.Milliseconds()/rounds, float64(pfloor)/float64(floor), float64(lint)/float64(pfloor))
	fmt.Printf("  flux-chain --repo                   %6d ms  %.2fx (target <= 1.30)\n", lint.Milliseconds()/rounds, ratio)
}
