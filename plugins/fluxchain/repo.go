package fluxchain

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubeforensics/suite/internal/chain"
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
// cluster; toRequest turns them into the chain.RepoRequest that chain.PlanRepo runs.
type repoOptions struct {
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

	// opened is the RepoRequest the flags open (chain.OpenRepoRequest, at Complete): the
	// repository, its layout and settings, and --fail-on read.
	opened chain.RepoRequest
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
	if r.NetworkTimeout <= 0 {
		return exitcode.UsageErrorf("--network-timeout must be positive")
	}
	if r.Timeout < 0 {
		return exitcode.UsageErrorf("--timeout must be positive")
	}
	return nil
}

// complete reads --fail-on, opens the repository, settles the entry path and reads the
// settings, as the MCP tool does (chain.OpenRepoRequest).
func (r *repoOptions) complete() error {
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	req, err := chain.OpenRepoRequest(chain.RepoArgs{Dir: r.Dir, SourceRoot: r.SourceRoot, Path: r.Path, FailOn: r.FailOn, Base: r.Base,
		Config: r.Config, Declared: r.Declared})
	if err != nil {
		return err
	}
	r.opened, r.root, r.repo, r.layout, r.Path = req, req.Root, req.Repo, req.Layout, req.Layout.Entry
	return nil
}

// toRequest is the RepoRequest of the completed and validated flags: what complete opened (the
// repository, its settings and --fail-on), the network, the chart renderer, and live, the
// cluster to compare with (nil without --live). A chart flag that cannot be honoured is bad
// input (exit 3).
func (r *repoOptions) toRequest(clock report.Clock, live *chain.LiveRequest, errOut io.Writer) (chain.RepoRequest, error) {
	crds, err := r.chartCRDs(errOut)
	if err != nil {
		return chain.RepoRequest{}, err
	}
	req := r.opened
	req.AllowNetwork, req.NetworkTimeout, req.Charts, req.Live, req.Clock = r.AllowNetwork, r.NetworkTimeout, crds, live, clock
	return req, nil
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
	var live *chain.LiveRequest
	if o.repo.Live {
		live = &chain.LiveRequest{Clients: o.clients, Namespace: o.live.namespace}
	}
	req, err := o.repo.toRequest(o.Clock, live, o.ErrOut)
	if err != nil {
		return err
	}
	res, err := o.lintRepo(ctx, req)
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

// lintRepo plans req (reading the cluster with --live) within --timeout; past it the run is
// UNKNOWN, naming what was still being built.
func (o *FluxChainOptions) lintRepo(ctx context.Context, req chain.RepoRequest) (*RepoResult, error) {
	timeout := o.repo.Timeout
	if timeout == 0 {
		timeout = cli.DefaultTimeout
	}
	tctx, tracker, cancel := cli.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := chain.PlanRepo(tctx, req)
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

// chartCRDs is how HelmReleases are rendered for crd-order (chain.ChartRenderer), nil when no
// chart source is given; a render worker found but not used is said on errOut.
func (r *repoOptions) chartCRDs(errOut io.Writer) (*lint.ChartCRDs, error) {
	return chain.ChartRenderer(r.ChartsDir, r.ChartCacheDir, r.KubeVersion, r.AllowNetwork, r.NetworkTimeout, errOut)
}
