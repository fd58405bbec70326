package whyterminating_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// The -A sweep against its floor: one discovery (from the same warmed cache the plugin reads)
// plus one parallel metadata-only LIST of every listable type, cluster-wide, in a pool of 16.
// Both connect afresh on every run, as the plugin does.

// runInProcessAll runs `why-terminating -A -o json` through NewCmdWhyTerminating and checks
// that it explained every held object and the namespace.
func (f *benchFixture) runInProcessAll(ctx context.Context, b *testing.B, flags []string) time.Duration {
	run := f.startAll(ctx, flags)
	f.checkAll(b, run)
	return run.took
}

// allRun is one `-A` run: how long it took, its exit code and its output.
type allRun struct {
	took        time.Duration
	code        int
	out, errOut bytes.Buffer
}

// startAll runs `why-terminating -A -o json` through NewCmdWhyTerminating, unchecked: the runs
// whose CPU is measured check their output after the measurement (checkAll), since parsing
// the JSON back is the benchmark's work, not the plugin's.
func (f *benchFixture) startAll(ctx context.Context, flags []string) *allRun {
	run := &allRun{}
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &run.out, ErrOut: &run.errOut}
	args := append(slices.Clone(flags), "-A", "-o", "json")
	t0 := time.Now()
	run.code = cli.Run(ctx, whyterminating.NewCmdWhyTerminating(streams), args, &run.errOut)
	run.took = time.Since(t0)
	return run
}

// checkAll fails the benchmark unless the run explained every held object and the namespace.
func (f *benchFixture) checkAll(b *testing.B, run *allRun) {
	if run.code != 1 {
		b.Fatalf("why-terminating -A exited %d, want 1 (stuck): %s", run.code, run.errOut.String())
	}
	var res whyterminating.Result
	if err := json.Unmarshal(run.out.Bytes(), &res); err != nil {
		b.Fatalf("parsing why-terminating -A JSON: %v", err)
	}
	if res.Verdict != "STUCK" || res.Summary.Terminating != f.seeded.held+1 {
		b.Fatalf("why-terminating -A: verdict %s with %d Terminating objects, want STUCK with %d", res.Verdict, res.Summary.Terminating, f.seeded.held+1)
	}
}

// runFloorAll is the -A floor: connect, discover, and list every listable type in the cluster,
// metadata only, paginated at 500, keeping a count.
func (f *benchFixture) runFloorAll(ctx context.Context, b *testing.B) (time.Duration, int) {
	t0 := time.Now()
	flags := genericclioptions.NewConfigFlags(true)
	*flags.KubeConfig, *flags.Context, *flags.CacheDir = f.flags[1], f.flags[3], f.flags[5]
	c, err := cluster.Connect(flags)
	if err != nil {
		b.Fatal(err)
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var lists, objects int
	var firstErr error
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for _, r := range catalog.Preferred() {
		if !r.Can("list") {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n, l, err := benchListCluster(ctx, c, r)
			mu.Lock()
			defer mu.Unlock()
			objects, lists = objects+n, lists+l
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	d := time.Since(t0)
	if firstErr != nil || objects < f.seeded.objects {
		b.Fatalf("floor -A: %d objects listed, want at least %d: %v", objects, f.seeded.objects, firstErr)
	}
	return d, lists
}

// benchListCluster lists one type in the whole cluster, metadata only, page by page.
func benchListCluster(ctx context.Context, c *cluster.Clients, r kinds.Resource) (objects, lists int, err error) {
	ri := c.Metadata.Resource(r.GVR())
	opts := metav1.ListOptions{Limit: 500}
	for {
		l, err := ri.List(ctx, opts)
		lists++
		if err != nil {
			return objects, lists, fmt.Errorf("list %s: %w", r.QualifiedName(), err)
		}
		objects += len(l.Items)
		if l.Continue == "" {
			return objects, lists, nil
		}
		opts.Continue = l.Continue
	}
}
