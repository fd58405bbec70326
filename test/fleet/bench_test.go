package fleet_test

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// benchRounds is how many times each measurement is repeated; the median counts.
const benchRounds = 5

// BenchmarkFleet compares `why-terminating -A` over ten contexts (--parallel=10) with the
// slowest single context alone (issue #27's target: at most 1.5x). The ten contexts alternate
// between the two real control planes TestMain started (the incident and the healthy one), so
// each server answers five contexts at once, on the same cores as the client.
//
//   - local: the contexts reach the servers directly. On one small machine this measures how
//     ten runs share its cores, not a fleet, whose clusters each have their own.
//   - rtt=50ms: each context reaches its server through its own proxy that delays every
//     packet 25ms each way, as a cluster in another region does; the servers are the same.
//
// Run by `make bench`:
//
//	go test -run '^$' -bench '^BenchmarkFleet$' -benchtime 1x -v ./test/fleet/
func BenchmarkFleet(b *testing.B) {
	needEnv(b)
	for _, oneWay := range []time.Duration{0, 25 * time.Millisecond} {
		name := "local"
		if oneWay > 0 {
			name = fmt.Sprintf("rtt=%s", 2*oneWay)
		}
		b.Run(name, func(b *testing.B) {
			singles := fleetKubeconfig(b, oneWay, []string{stuckCtx, healthyCtx})
			var sources []string
			for i := range 10 {
				sources = append(sources, []string{stuckCtx, healthyCtx}[i%2])
			}
			ten := fleetKubeconfig(b, oneWay, sources)
			for range b.N {
				slowest := max(
					median(func() { mustRun(b, 1, "--kubeconfig="+singles, "--context=fleet-00", "-A", "-o", "json") }),
					median(func() { mustRun(b, 0, "--kubeconfig="+singles, "--context=fleet-01", "-A", "-o", "json") }))
				all := median(func() { mustRun(b, 1, "--kubeconfig="+ten, "--all-contexts", "--parallel=10", "-A", "-o", "json") })
				ratio := float64(all) / float64(slowest)
				b.ReportMetric(float64(slowest.Milliseconds()), "ms-slowest-single")
				b.ReportMetric(float64(all.Milliseconds()), "ms-ten-contexts")
				b.ReportMetric(ratio, "x-slowest-single")
				b.Logf("%s: 10 contexts %s; slowest single context %s; ratio %.2fx (target <= 1.5x)", name, all, slowest, ratio)
			}
		})
	}
}

// mustRun runs why-terminating and fails the benchmark on an unexpected exit code.
func mustRun(b *testing.B, want int, args ...string) {
	out, stderr, code := run(b, whyTerminating, args...)
	if code != want {
		b.Fatalf("exit %d, want %d\n%s%s", code, want, out, stderr)
	}
}

// median runs f benchRounds times (after one warm-up run) and returns the median duration.
func median(f func()) time.Duration {
	f()
	d := make([]time.Duration, benchRounds)
	for i := range d {
		start := time.Now()
		f()
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// fleetKubeconfig writes a kubeconfig with one context per source, fleet-00, fleet-01, …,
// each a copy of that source context of the test fleet; with oneWay > 0 each reaches its
// server through a latency proxy of its own.
func fleetKubeconfig(b *testing.B, oneWay time.Duration, sources []string) string {
	in, err := clientcmd.LoadFromFile(env.kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	out := clientcmdapi.NewConfig()
	for i, src := range sources {
		name := fmt.Sprintf("fleet-%02d", i)
		ctx := *in.Contexts[src]
		cl := *in.Clusters[ctx.Cluster]
		if oneWay > 0 {
			u, err := url.Parse(cl.Server)
			if err != nil {
				b.Fatal(err)
			}
			cl.Server = "https://" + startLatencyProxy(b, u.Host, oneWay).Addr()
		}
		out.Clusters[name], out.AuthInfos[name] = &cl, in.AuthInfos[ctx.AuthInfo]
		out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	out.CurrentContext = "fleet-00"
	path := filepath.Join(b.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		b.Fatal(err)
	}
	return path
}
