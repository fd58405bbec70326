package fluxchain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// repoOptions are the flags of the --repo mode, which lints a repository instead of reading a
// cluster.
type repoOptions struct {
	// clock stamps the report (FluxChainOptions.Clock); nil is the system clock.
	clock             report.Clock
	Dir, Path, FailOn string
	SourceRoot        string
	AllowNetwork      bool
	NetworkTimeout    time.Duration
	Timeout           time.Duration
	// ChartsDir, ChartCacheDir and KubeVersion render the charts of HelmReleases, so
	// crd-order knows the CRDs each installs; rendering is on when --charts, --chart-cache or
	// --allow-network is given.
	ChartsDir, ChartCacheDir, KubeVersion string
	// Live also compares the repository with the cluster the connection flags select.
	Live bool
	// Base is the revision the working tree is compared with (--base): the result then says
	// which findings the candidate adds and fixes.
	Base string
	configFlags

	// failSeverity and failScope are --fail-on read (Validate).
	failSeverity lint.Severity
	failScope    string

	// root is the repository's top level; layout says where its Flux source starts.
	root   string
	repo   *gitrev.Repo
	layout sourceroot.Layout
	getenv func(string) string
}

func (r *repoOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.Dir, "repo", "", "Lint the Flux chain of this GitOps repository (working tree) instead of reading a cluster.")
	cmd.Flags().StringVar(&r.Path, "path", "", "With --repo: the entry path to build first, relative to the source root, e.g. the path of a root Kustomization the bootstrap tool created in the cluster (default: detected: the only clusters/<name> or flux/cluster directory that declares Flux Kustomizations, else the source root; several such directories are refused, naming them).")
	cmd.Flags().StringVar(&r.SourceRoot, "source-root", "", "With --repo: the directory spec.paths are relative to, when Flux's source is an artifact pushed from a subdirectory (default: detected, and reported).")
	cmd.Flags().StringVar(&r.FailOn, "fail-on", "", "With --repo: exit 1 for findings at or above this severity: error, warning or info (default error); with --base, new (the default) counts only the findings the candidate adds, all every finding; both as new,warning.")
	cmd.Flags().StringVar(&r.Base, "base", "", "With --repo: also lint this revision (a pull request's base) and report the findings the working tree adds and fixes; --fail-on then counts the added ones.")
	cmd.Flags().BoolVar(&r.AllowNetwork, "allow-network", false, "With --repo: fetch remote kustomize bases and resources instead of reporting the tier as not built.")
	cmd.Flags().DurationVar(&r.NetworkTimeout, "network-timeout", kbuild.DefaultNetworkTimeout, "With --repo --allow-network: the longest one remote file or git fetch may take to arrive; past it the tier is not built.")
	cmd.Flags().DurationVar(&r.Timeout, "timeout", 0, fmt.Sprintf("With --repo: the longest the lint may take (every build, and the live read with --live); past it the run ends UNKNOWN (exit 2), naming what was still being built (default %s).", cli.DefaultTimeout))
	cmd.Flags().StringVar(&r.ChartsDir, "charts", "", "With --repo: render HelmReleases with charts pulled beforehand from `DIR` (helm pull output, <name>-<version>.tgz), so the CRDs each installs count as declared by its tier.")
	cmd.Flags().StringVar(&r.ChartCacheDir, "chart-cache", "", "With --repo: render HelmReleases with the charts kept in this directory (safe-retire's --chart-cache; with --allow-network, downloads are kept there).")
	cmd.Flags().StringVar(&r.KubeVersion, "kube-version", helmrender.DefaultKubeVersion, "With --repo: the Kubernetes version charts see in .Capabilities when HelmReleases are rendered.")
	cmd.Flags().BoolVar(&r.Live, "live", false, "With --repo: also compare the repository with the cluster (Kustomizations on one side only, spec drift, CRDs only the cluster has); all namespaces unless -n is given.")
	r.configFlags.addFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "info"}, cobra.ShellCompDirectiveNoFileComp))
}

// validate checks the --repo flags without reading anything, and that none is given without
// --repo; the live chain's flags are liveOptions.validate's.
func (r *repoOptions) validate() error {
	if r.Dir == "" {
		switch {
		case r.Path != "":
			return exitcode.UsageErrorf("--path needs --repo")
		case r.SourceRoot != "":
			return exitcode.UsageErrorf("--source-root needs --repo")
		case r.FailOn != "":
			return exitcode.UsageErrorf("--fail-on needs --repo: the live chain exits 1 for any finding")
		case r.AllowNetwork:
			return exitcode.UsageErrorf("--allow-network needs --repo")
		case r.Timeout != 0:
			return exitcode.UsageErrorf("--timeout needs --repo")
		case r.Live:
			return exitcode.UsageErrorf("--live needs --repo: it compares a repository with the cluster")
		case r.Base != "":
			return exitcode.UsageErrorf("--base needs --repo")
		case r.configFlags.used():
			return exitcode.UsageErrorf("--config, --crds, --crds-from and --severity need --repo")
		}
		return nil
	}
	sev, scope, err := parseFailOn(r.FailOn, r.Base != "")
	if err != nil {
		return exitcode.UsageErrorf("--fail-on: %w", err)
	}
	r.failSeverity, r.failScope = sev, scope
	if r.NetworkTimeout <= 0 {
		return exitcode.UsageErrorf("--network-timeout must be positive")
	}
	if r.Timeout < 0 {
		return exitcode.UsageErrorf("--timeout must be positive")
	}
	return nil
}

// failOn is the severity --fail-on names, error when it names none (Validate reads it).
func (r *repoOptions) failOn() lint.Severity {
	if r.failSeverity == "" {
		return lint.Error
	}
	return r.failSeverity
}

// complete opens the repository and settles the entry path.
func (r *repoOptions) complete() error {
	repo, err := gitrev.OpenRepo(r.Dir)
	if err != nil {
		return err
	}
	r.root, r.repo = repo.Dir, repo
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	layout, err := sourceroot.Detect(r.root, r.SourceRoot, r.Path, nil)
	if err != nil {
		return exitcode.UsageErrorf("%s: %v", r.Dir, err)
	}
	r.layout, r.Path = layout, layout.Entry
	return r.configFlags.complete(r.root)
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
	var unrendered []string
	if crds != nil {
		unrendered = r.RenderCRDs(ctx, *crds)
	}
	var gaps []output.Gap
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

// result builds and checks the completed repository (compared with live when that is set) and
// fills in what the printers need: where the repository and its configuration are, file
// paths from the top of the repository, and the verdict for --fail-on.
func (r *repoOptions) result(ctx context.Context, live *LiveComparison) (*RepoResult, error) {
	l := r.layout
	s := r.settings
	s.TopPath = l.FromTop
	crds, err := r.chartCRDs()
	if err != nil {
		return nil, err
	}
	res, err := computeRepo(ctx, l.Dir(r.root), r.root, r.Path, r.AllowNetwork, live, s, crds)
	if err != nil {
		return nil, err
	}
	res.Repo, res.Layout, res.Config, res.DeclaredCRDs = r.root, &l, r.path, s.CRDs.Len()
	if res.Commit, err = r.head(ctx); err != nil {
		return nil, err
	}
	for _, fs := range [][]lint.Finding{res.Lint, res.Suppressed} {
		for i := range fs {
			fs[i].File = l.FromTop(fs[i].File)
		}
	}
	res.FailOn = r.failOn()
	if r.Base != "" {
		if err := r.lintBase(ctx, res, s, crds); err != nil {
			return nil, err
		}
	}
	res.finish(r.clock)
	return res, nil
}

// runRepo lints the repository (and with --live compares it with the cluster), prints the
// result and returns its exit code (RepoResult.Code).
func (o *FluxChainOptions) runRepo(ctx context.Context) error {
	if o.repo.Live {
		cli.Banner(o.ErrOut, o.clients.Target)
	}
	l := o.repo.layout
	// Directory names come from the repository: escaped like every printed field.
	fmt.Fprintf(o.ErrOut, "# repository %s, source root %s (%s), entry path %s (%s)\n", output.Sanitize(o.repo.root),
		output.Sanitize(l.SourceRoot), output.Sanitize(l.SourceRootHow), output.Sanitize(l.Entry), output.Sanitize(l.EntryHow))
	res, err := o.lintRepo(ctx)
	if err != nil {
		return err
	}
	if err := o.printRepo(res); err != nil {
		return err
	}
	if err := o.repoGitHub(res); err != nil {
		return err
	}
	o.repoComment(ctx, res)
	return exitError(res.ExitCode)
}

// lintRepo reads the cluster (--live) and lints the repository within --timeout; past it the
// run is UNKNOWN, naming what was still being built.
func (o *FluxChainOptions) lintRepo(ctx context.Context) (*RepoResult, error) {
	timeout := o.repo.Timeout
	if timeout == 0 {
		timeout = cli.DefaultTimeout
	}
	tctx, tracker, cancel := cli.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = kbuild.WithSubstitutionBudget(kbuild.WithNetworkTimeout(tctx, o.repo.NetworkTimeout), kbuild.DefaultSubstitutionBudget)
	var live *LiveComparison
	var err error
	if o.repo.Live {
		live, err = o.readLive(ctx)
	}
	var res *RepoResult
	if err == nil {
		o.repo.clock = o.Clock
		res, err = o.repo.result(ctx, live)
	}
	cancel()
	if terr := cli.TimedOut(tctx, timeout, tracker); terr != nil {
		return nil, terr
	}
	return res, err
}

// printRepo hands the result to the printer -o chose. The graphs are live mode's, each
// Kustomization labelled with its lint findings (rule and count) and outlined by the most
// severe; findings that name no Kustomization go on a note of their own.
func (o *FluxChainOptions) printRepo(res *RepoResult) error {
	if output.Format(o.PrintFlags.Format) == sarif.Format {
		return PrintRepoSARIF(o.Out, res)
	}
	text := func(w io.Writer, p output.Palette) error { return PrintRepoText(w, res, p) }
	notes := lint.GraphNotes(res.Lint)
	return o.PrintFlags.Print(o.Out, res, text, output.Graphs{
		Dot:     func(w io.Writer) error { return res.WriteDot(w, notes) },
		Mermaid: func(w io.Writer) error { return res.WriteMermaid(w, notes) },
	})
}

// chartCRDs is how HelmReleases are rendered for crd-order, nil when no chart source is given.
func (r *repoOptions) chartCRDs() (*lint.ChartCRDs, error) {
	if r.ChartsDir == "" && r.ChartCacheDir == "" && !r.AllowNetwork {
		return nil, nil
	}
	if err := helmrender.CheckKubeVersion(r.KubeVersion); err != nil {
		return nil, exitcode.UsageErrorf("--kube-version %q: %v", r.KubeVersion, err)
	}
	g := &charts.Getter{Dir: r.ChartsDir, AllowNetwork: r.AllowNetwork, Timeout: r.NetworkTimeout}
	if r.ChartCacheDir != "" {
		c, err := charts.OpenCache(r.ChartCacheDir)
		if err != nil {
			return nil, exitcode.UsageErrorf("--chart-cache: %v", err)
		}
		g.Cache = c
	}
	return &lint.ChartCRDs{Charts: g, Options: helmrender.Options{KubeVersion: r.KubeVersion}}, nil
}

// head is the commit checked out in the repository, which the report names as its revision;
// empty in a repository without commits. The lint reads the working tree, which may hold
// changes not committed: the report says so rather than run `git status`, which could apply
// the repository's filters.
func (r *repoOptions) head(ctx context.Context) (string, error) {
	if r.repo == nil {
		return "", nil
	}
	commit, err := r.repo.Resolve(ctx, "HEAD")
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr
	}
	if exitcode.Of(err) == exitcode.Usage {
		return "", nil // no commit yet
	}
	return commit, err
}
