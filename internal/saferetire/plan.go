package saferetire

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/progress"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// maxCacheBytes bounds the build cache: its least recently used entries go beyond it.
const maxCacheBytes = 1 << 30

// Plan runs the gate of req (or, with req.Orphans, the orphans scan) and returns the result
// with its verdict. It carries out nothing: with req.DryRun, a SAFE live gate's plan of live
// steps is read and digested too; without, Execute carries the plan out. A build cache entry
// that fails its trust check is bad input (exit 3): it may have decided the result.
func Plan(ctx context.Context, req Request) (*Result, error) {
	r := req.withDefaults()
	if err := r.Validate(); err != nil {
		return nil, err
	}
	_, cancel, res, err := r.bounded(ctx)
	cancel()
	if err != nil {
		return nil, err
	}
	if r.DryRun && !r.Orphans {
		if err := r.confirmPlan(ctx, res, r.liveSteps(res)); err != nil {
			// The gate stands; only the digest that would bind a run to it is missing.
			res.Warnings = append(res.Warnings, report.Note{Code: report.NoteNoPlanDigest,
				Message: "no plan digest: " + err.Error() + "; nothing can be carried out with --confirm from this review"})
		}
	}
	return res, nil
}

// bounded computes the result within req.Timeout (when set), the network timeout and the
// substitution budget, then keeps the build cache; it returns the bounded context, whose
// deadline later reads share, and the function that releases it. A timeout is UNKNOWN (exit 2),
// naming what was still being built.
func (req *Request) bounded(ctx context.Context) (context.Context, context.CancelFunc, *Result, error) {
	gctx, cancel := ctx, context.CancelFunc(func() {})
	var tracker *progress.Tracker
	if req.Timeout > 0 {
		gctx, tracker, cancel = cli.WithTimeout(ctx, req.Timeout)
	}
	res, err := req.compute(kbuild.WithSubstitutionBudget(kbuild.WithNetworkTimeout(gctx, req.NetworkTimeout), kbuild.DefaultSubstitutionBudget))
	if terr := cli.TimedOut(gctx, req.Timeout, tracker); terr != nil {
		return gctx, cancel, nil, terr
	}
	if cerr := req.keepCache(); cerr != nil {
		return gctx, cancel, nil, cerr
	}
	if cerr := req.keepRenderCache(); cerr != nil {
		return gctx, cancel, nil, cerr
	}
	return gctx, cancel, res, err
}

// keepCache checks the build cache after a run: an untrusted entry is an error, entries that
// failed authentication (built instead) are reported, and a run that stored entries trims it.
func (req *Request) keepCache() error {
	c := req.BuildCache
	if bad := c.Untrusted(); bad != nil { // a planted entry may have decided the result
		return exitcode.WithCode(exitcode.Usage, bad)
	}
	if n, named := c.Unauthenticated(); n > 0 {
		fmt.Fprintf(req.log(), "# build cache: %d entr(ies) failed authentication (forged, damaged, or written under another key) and were built instead: %s\n",
			n, output.Sanitize(strings.Join(named, ", ")))
	}
	if _, _, stored := c.Stats(); stored > 0 { // only a run that added entries walks the cache
		if err := c.Trim(maxCacheBytes); err != nil {
			fmt.Fprintf(req.log(), "# trimming the build cache: %s\n", output.Sanitize(err.Error()))
		}
	}
	return nil
}

// keepRenderCache checks the render cache after a run as keepCache checks the build cache.
func (req *Request) keepRenderCache() error {
	c := req.RenderCache
	if bad := c.Untrusted(); bad != nil {
		return exitcode.WithCode(exitcode.Usage, bad)
	}
	if n, named := c.Unauthenticated(); n > 0 {
		fmt.Fprintf(req.log(), "# render cache: %d entr(ies) failed authentication (forged, damaged, or written under another key) and were rendered instead: %s\n",
			n, output.Sanitize(strings.Join(named, ", ")))
	}
	if _, _, stored := c.Stats(); stored > 0 {
		if err := c.Trim(maxCacheBytes); err != nil {
			fmt.Fprintf(req.log(), "# trimming the render cache: %s\n", output.Sanitize(err.Error()))
		}
	}
	return nil
}

// compute runs the gate, or the orphans scan, and returns the result with its verdict.
func (req *Request) compute(ctx context.Context) (*Result, error) {
	res := &Result{Mode: "offline"}
	if req.Clients != nil {
		res.Mode, res.Target = "live", &req.Clients.Target
	}
	if req.Orphans {
		found, err := retire.FindOrphans(ctx, req.Clients)
		if err != nil {
			return nil, err
		}
		res.Mode, res.Orphans = "orphans", found.Orphans
		res.Kustomizations, res.Report.Incomplete, res.Unchecked = found.Kustomizations, found.Incomplete, found.Unchecked
		res.finish(req.Clock)
		return res, nil
	}
	gate := retire.Request{RepoDir: req.Repo, Base: req.Base, Candidate: req.Candidate, Entry: req.Path,
		SourceRoot: req.SourceRoot, AllowNetwork: req.AllowNetwork, PersistentKinds: req.PersistentKinds, Target: req.Target, Full: req.Full, Cache: req.BuildCache,
		Helm: &helmjudge.Renderer{
			Charts:  &charts.Getter{Dir: req.ChartsDir, Cache: req.ChartCache, AllowNetwork: req.AllowNetwork, Timeout: req.NetworkTimeout},
			Options: helmrender.Options{KubeVersion: req.KubeVersion, AllowNetwork: req.AllowNetwork, Cache: req.RenderCache, Worker: helmrender.NewWorker(req.log())},
		}}
	var live retire.Cluster
	if req.Clients != nil {
		live = retire.NewLiveCluster(req.Clients)
		if req.Clients.NamespaceExplicit {
			gate.Namespace = req.Clients.Namespace
		}
	}
	rep, err := retire.Gate(ctx, gate, live)
	if err != nil {
		return nil, err
	}
	res.Report = *rep
	res.finish(req.Clock)
	return res, nil
}
