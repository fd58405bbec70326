package fluxchain_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// BenchmarkFluxChain runs `flux-chain -n NS -o json` end to end over a layered DAG of N
// Kustomizations (layers of 50, each node depending on two of the layer above) and N/2
// HelmReleases, and reports its time as a multiple of a bare paginated LIST of the same
// objects (x-list), the LIST time itself and the process's peak RSS. N=5000 runs only with
// KF_BENCH_LARGE=1.
func BenchmarkFluxChain(b *testing.B) {
	needEnv(b)
	sizes := []int{100, 1000}
	if os.Getenv("KF_BENCH_LARGE") == "1" {
		sizes = append(sizes, 5000)
	}
	for _, n := range sizes {
		ns := fmt.Sprintf("bench-%d", n)
		populate(b, ns, n)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			list := timeBareList(b, ns, 5)
			args := []string{"--kubeconfig=" + env.Kubeconfig, "--context=" + env.Context, "-n", ns, "-o", "json"}
			for b.Loop() {
				var errOut bytes.Buffer
				streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: io.Discard, ErrOut: &errOut}
				if code := cli.Run(context.Background(), fluxchain.NewCmdFluxChain(streams), args, &errOut); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			per := b.Elapsed() / time.Duration(b.N)
			b.ReportMetric(float64(per)/float64(list), "x-list")
			b.ReportMetric(float64(list.Microseconds())/1000, "list-ms")
			b.ReportMetric(float64(per.Microseconds())/1000/float64(n)*1000, "ms/1000ks")
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
				b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MB")
			}
		})
	}
}

// timeBareList is the mean time of listing the benchmark's Kustomizations and HelmReleases,
// page by page, without decoding or analysis.
func timeBareList(b *testing.B, ns string, rounds int) time.Duration {
	dyn, _ := clients(b)
	start := time.Now()
	for range rounds {
		for _, gvr := range []schema.GroupVersionResource{flux.KustomizationGVR, flux.HelmReleaseGVR} {
			opts := metav1.ListOptions{Limit: 500}
			for {
				l, err := dyn.Resource(gvr).Namespace(ns).List(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				if opts.Continue = l.GetContinue(); opts.Continue == "" {
					break
				}
			}
		}
	}
	return time.Since(start) / time.Duration(rounds)
}

// populate creates n Ready Kustomizations in a layered DAG and n/2 Ready HelmReleases.
func populate(b *testing.B, ns string, n int) {
	f := newFixture(b, ns)
	f.gitRepo("fleet", rev1)
	work := make(chan func(), 64)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for job := range work {
				job()
			}
		})
	}
	const width = 50
	for i := range n {
		var deps []string
		if layer := i / width; layer > 0 {
			base := (layer - 1) * width
			deps = []string{fmt.Sprintf("ks-%05d", base+i%width), fmt.Sprintf("ks-%05d", base+(i+1)%width)}
		}
		work <- func() { f.ks(readyKS(fmt.Sprintf("ks-%05d", i), rev1, deps...)) }
	}
	for i := range n / 2 {
		work <- func() { f.helmRelease(fmt.Sprintf("hr-%05d", i), fmt.Sprintf("ks-%05d", i)) }
	}
	close(work)
	wg.Wait()
}

// helmRelease creates a Ready HelmRelease applied by the Kustomization owner.
func (f *fixture) helmRelease(name, owner string) {
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": f.ns, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": owner, "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
		"spec": map[string]any{"interval": "10m",
			"chart": map[string]any{"spec": map[string]any{"chart": "podinfo", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "podinfo"}}}},
	}}, map[string]any{"conditions": []any{cond("Ready", "True", "InstallSucceeded", "Helm install succeeded")}})
}
