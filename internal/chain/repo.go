package chain

import (
	"context"
	"errors"
	"time"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// RepoRequest is one lint of a repository (flux-chain --repo): the repository opened, where
// its Flux source starts, the rule configuration, the bounds, and, with --live, the cluster to
// compare it with. The command line and the MCP server each build one.
type RepoRequest struct {
	// Repo is the repository, opened at its top level (Root); Layout says where its Flux source
	// starts and which entry path is built first (Layout.Entry).
	Repo   *gitrev.Repo
	Root   string
	Layout sourceroot.Layout
	// Settings are the rules' configuration: the configuration file (ConfigPath, "" for none)
	// and the flags combined.
	Settings   lint.Settings
	ConfigPath string
	// FailOn is the least severity of a finding that fails the result ("" for error);
	// FailScope which findings count with a Base (FailOnNew or FailOnAll).
	FailOn    lint.Severity
	FailScope string
	// Base is the revision the working tree is compared with; "" for none.
	Base string
	// AllowNetwork fetches remote kustomize bases and resources, each within NetworkTimeout;
	// without it a tier with one is not built (UNKNOWN).
	AllowNetwork   bool
	NetworkTimeout time.Duration
	// Charts renders HelmReleases so crd-order knows the CRDs each installs; nil renders none.
	Charts *lint.ChartCRDs
	// Live is the cluster to compare the repository with (--live); nil reads no cluster.
	Live *LiveRequest
	// Clock stamps the report; nil is the system clock.
	Clock report.Clock
}

// PlanRepo builds the repository's chain (and with Live reads the cluster first), lints it,
// lints the base revision when one is given, and judges the result for FailOn. A repository
// whose entry path holds no Flux Kustomization is bad input (exit 3).
func PlanRepo(ctx context.Context, req RepoRequest) (*RepoResult, error) {
	ctx = kbuild.WithSubstitutionBudget(kbuild.WithNetworkTimeout(ctx, req.NetworkTimeout), kbuild.DefaultSubstitutionBudget)
	var live *LiveComparison
	if req.Live != nil {
		var err error
		if live, err = readLive(ctx, *req.Live); err != nil {
			return nil, err
		}
	}
	return result(ctx, req, live)
}

// computeRepo builds the repository at root from entry, compares it with live when that is
// set (--live), and checks it with the settings. A build without any Flux Kustomization is bad
// input: there is no chain to judge, and "no findings" would be a silent zero.
// top is the repository's top level, where bootstrap files are read.
func computeRepo(ctx context.Context, root, top, entry string, allowNetwork bool, live *LiveComparison, s lint.Settings, crds *lint.ChartCRDs) (*RepoResult, error) {
	r, err := lint.Load(ctx, root, lint.Options{Entry: entry, AllowNetwork: allowNetwork, Top: top})
	switch {
	case errors.Is(err, kbuild.ErrPathNotFound):
		return nil, exitcode.UsageErrorf("--path %s: %w", entry, err)
	case err != nil:
		return nil, exitcode.WithCode(exitcode.Unknown, err)
	case len(r.Tiers) == 0:
		return nil, exitcode.UsageErrorf("%s: the build of entry path %s holds no Flux Kustomization (kustomize.toolkit.fluxcd.io); give --path the directory with the root Kustomization or the Kustomizations it applies", root, r.Entry)
	}
	var unrendered []report.Gap
	if crds != nil {
		unrendered = r.RenderCRDs(ctx, *crds)
	}
	var gaps []report.Gap
	if live != nil {
		live.LiveDiff, gaps = *r.Compare(live.objects), live.gaps
	}
	out, err := lint.Check(r, s)
	if err != nil {
		return nil, exitcode.UsageErrorf("%v", err)
	}
	res := &RepoResult{Live: live, Repo: root, Path: r.Entry, Chain: *r.Chain, Lint: out.Findings, Suppressed: out.Suppressed, Undecoded: r.Undecoded, Incomplete: gaps}
	res.BuildFailures, res.NotCovered = r.Unjudged()
	res.Unrendered = unrendered
	return res, nil
}

// result builds and checks the repository (compared with live when that is set) and fills in
// what the printers need: where the repository and its configuration are, file paths from the
// top of the repository, and the verdict for FailOn.
func result(ctx context.Context, r RepoRequest, live *LiveComparison) (*RepoResult, error) {
	l := r.Layout
	s := r.Settings
	s.TopPath = l.FromTop
	res, err := computeRepo(ctx, l.Dir(r.Root), r.Root, l.Entry, r.AllowNetwork, live, s, r.Charts)
	if err != nil {
		return nil, err
	}
	res.Repo, res.Layout, res.Config, res.DeclaredCRDs = r.Root, &l, r.ConfigPath, s.CRDs.Len()
	if res.Commit, err = head(ctx, r.Repo); err != nil {
		return nil, err
	}
	for _, fs := range [][]lint.Finding{res.Lint, res.Suppressed} {
		for i := range fs {
			fs[i].File = l.FromTop(fs[i].File)
		}
	}
	res.FailOn = r.FailOn
	if res.FailOn == "" {
		res.FailOn = lint.Error
	}
	if r.Base != "" {
		if err := lintBase(ctx, r, res, s); err != nil {
			return nil, err
		}
	}
	res.finish(r.Clock)
	return res, nil
}

// head is the commit checked out in the repository, which the report names as its revision;
// empty in a repository without commits. The lint reads the working tree, which may hold
// changes not committed: the report says so rather than run `git status`, which could apply
// the repository's filters.
func head(ctx context.Context, repo *gitrev.Repo) (string, error) {
	if repo == nil {
		return "", nil
	}
	commit, err := repo.Resolve(ctx, "HEAD")
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr
	}
	if exitcode.Of(err) == exitcode.Usage {
		return "", nil // no commit yet
	}
	return commit, err
}
