// Package saferetire is the `kubectl safe-retire` command: a gate that catches a change which
// would make Flux prune persistent state, and the staged plan that retires it safely — protect,
// drain, remove the manifest, delete by hand.
package saferetire

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/completion"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/ghcomment"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	sr "github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/version"
)

const example = `  # In a checkout of the GitOps repo: what would this branch retire on prod, and is it safe?
  kubectl safe-retire --context=prod --dry-run

  # The same check in CI without a cluster, against an explicit base
  kubectl safe-retire --dry-run --offline --base origin/main --repo ./platform

  # The same gate as SARIF, for GitHub code scanning (docs/sarif.md)
  kubectl safe-retire --dry-run --offline --base origin/main -o sarif > safe-retire.sarif

  # A repository pushed to Flux as an OCI artifact from k8s/, whose root Kustomization the
  # bootstrap tool created in the cluster only
  kubectl safe-retire --dry-run --offline --source-root k8s --path clusters/prod

  # Carry out stages 2 and 4 (delete pods left over from the drain, then retained objects
  # nobody uses any more), asking on the terminal before each step
  kubectl safe-retire --context=prod --base 3f2a1b0 --candidate main

  # The same without a terminal (a pipeline), bound to the plan a dry run printed: refused,
  # with nothing carried out, if anything in it changed since
  kubectl safe-retire --context=prod --repo=/src/platform --base=3f2a1b0... --candidate=9c4e7d2... \
    --confirm=sha256:<the digest the dry run printed>

  # Retained leftovers Flux no longer manages, waiting to be deleted by hand
  kubectl safe-retire --context=prod --orphans`

// SafeRetireOptions holds the flags of one invocation; ToRequest turns them into the
// saferetire.Request that Plan and Execute run.
type SafeRetireOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *output.PrintFlags
	genericiooptions.IOStreams

	Repo            string
	Base, Candidate string
	Path            string
	SourceRoot      string
	AllowNetwork    bool
	Full            bool
	CacheDir        string
	CacheKeyFile    string
	RenderCacheDir  string
	ChartsDir       string
	ChartCacheDir   string
	KubeVersion     string
	NetworkTimeout  time.Duration
	Timeout         time.Duration
	DryRun          bool
	Offline         bool
	Orphans         bool
	Yes             bool
	Confirm         string
	PersistentKinds []string
	GitHubComment   bool

	// Clock stamps the report's timestamp; nil is the system clock (tests fix it).
	Clock report.Clock

	// commentTo is where --github-comment posts, read from the environment by ToRequest.
	commentTo *ghcomment.Config
	// getenv reads GITHUB_ACTIONS and GITHUB_STEP_SUMMARY; tests replace it.
	getenv func(string) string
	// terminal is set when In is a terminal a person answers prompts on.
	terminal bool
	// planDir keeps the plans dry runs digested, so a refused --confirm names what changed.
	planDir string
}

// NewSafeRetireOptions returns options with kubectl's standard flags and text output.
func NewSafeRetireOptions(streams genericiooptions.IOStreams, getenv func(string) string) *SafeRetireOptions {
	return &SafeRetireOptions{
		ConfigFlags:    genericclioptions.NewConfigFlags(true),
		PrintFlags:     output.NewPrintFlags(output.Text, output.JSON, sarif.Format),
		IOStreams:      streams,
		Repo:           ".",
		Timeout:        cli.DefaultTimeout,
		CacheDir:       gitops.DefaultBuildCacheDir(getenv),
		ChartCacheDir:  charts.DefaultCacheDir(getenv),
		RenderCacheDir: helmrender.DefaultCacheDir(getenv),
		KubeVersion:    helmrender.DefaultKubeVersion,
		getenv:         getenv,
		terminal:       isTerminal(streams.In),
		planDir:        sr.DefaultPlanDir(getenv),
	}
}

// NewCmdSafeRetire builds the command; getenv is os.Getenv outside tests.
func NewCmdSafeRetire(streams genericiooptions.IOStreams, getenv func(string) string) *cobra.Command {
	return newCmd(NewSafeRetireOptions(streams, getenv))
}

// newCmd builds the command around o.
func newCmd(o *SafeRetireOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "safe-retire --dry-run [--repo DIR] [--base REV] [--candidate REV] [--offline] [flags]",
		Short: "Catch a change that would make Flux prune persistent state, and plan its safe retirement",
		Long: templates.LongDesc(`
			Compare what each Flux Kustomization builds to at a base and a candidate revision (and,
			live, what its inventory holds), decide for every dropped object whether Flux prunes it,
			keeps it (an opt-out) or hands it to another Kustomization, and refuse unprotected
			persistent state. Unsafe removals get a staged plan: protect, drain, remove the manifest,
			verify and delete by hand. Without --dry-run, the live steps of the plan are carried out,
			only with an explicit --context and after confirmation: asked on a terminal, or given
			as --confirm=<digest>, the digest the dry run prints for exactly the plan it shows.`),
		Example:      templates.Examples(example),
		SilenceUsage: true,
		Args:         cli.ExactArgsRange(0, 0),
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl safe-retire"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := o.ToRequest()
			if err != nil {
				return err
			}
			return o.Run(cmd.Context(), req)
		},
	}
	o.ConfigFlags.AddFlags(cmd.Flags())
	o.PrintFlags.AddFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Repo, "repo", o.Repo, "A directory in the GitOps repository's git working tree.")
	f.StringVar(&o.Base, "base", "", "Base revision (default: merge-base with the upstream default branch, else HEAD~1).")
	f.StringVar(&o.Candidate, "candidate", "", "Candidate revision (default: the working tree, uncommitted changes included).")
	f.StringVar(&o.Path, "path", "", "The entry path, relative to the source root, whose build declares the Flux Kustomizations when --offline (default: detected: the only clusters/<name> or flux/cluster directory that declares Flux Kustomizations, else the source root; several such directories are refused, naming them); live, the path of the root Kustomization, whose source is the repository's.")
	f.StringVar(&o.SourceRoot, "source-root", "", "The directory of the repository that spec.paths are relative to, when the source is an artifact pushed from a subdirectory (default: detected, and reported).")
	f.BoolVar(&o.Full, "full", false, "Offline: build every tier at both revisions, not only those whose inputs (files read, the Kustomization's spec, substitution sources) the change touches, and read no build cache.")
	f.StringVar(&o.CacheDir, "build-cache", o.CacheDir, "Keep tier builds in this directory between runs (kubeforensics/builds under $XDG_CACHE_HOME, else ~/.cache), keyed by everything each build reads, so a gate builds again only what no earlier run built; empty for none. --full and --allow-network use none.")
	f.StringVar(&o.RenderCacheDir, "render-cache", o.RenderCacheDir, "Keep HelmRelease renders in this directory between runs (kubeforensics/renders under $XDG_CACHE_HOME, else ~/.cache), keyed by the chart's digest, the composed values, the release's name and namespace, Capabilities and post-renderers, so a gate renders again only what no earlier run rendered; trusted as the build cache is, and authenticated with its key; empty for none. --full uses none.")
	f.StringVar(&o.CacheKeyFile, "build-cache-key-file", "", "A file (yours, mode 0600) holding the secret that authenticates build cache entries (HMAC-SHA256), so a cache restored from a store others can write cannot be forged; default $"+gitops.BuildCacheKeyEnv+". Without one, entries are trusted because only you can write the directory.")
	f.BoolVar(&o.AllowNetwork, "allow-network", false, "Fetch remote kustomize resources and bases, and the charts of HelmReleases the change removes or changes; without it a tier that needs them is UNKNOWN, with their URLs.")
	f.StringVar(&o.ChartsDir, "charts", "", "Read charts pulled beforehand from `DIR` (helm pull output, <name>-<version>.tgz) to render HelmReleases offline.")
	f.StringVar(&o.ChartCacheDir, "chart-cache", o.ChartCacheDir, "Keep downloaded charts in this directory, by digest, and read them offline (kubeforensics/charts under $XDG_CACHE_HOME, else ~/.cache); must belong to you and be writable by nobody else; empty for none.")
	f.StringVar(&o.KubeVersion, "kube-version", o.KubeVersion, "The Kubernetes version charts see in .Capabilities when HelmReleases are rendered.")
	f.DurationVar(&o.NetworkTimeout, "network-timeout", kbuild.DefaultNetworkTimeout, "With --allow-network: the longest one remote file or git fetch may take to arrive; past it the tier is UNKNOWN.")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "The longest the gate may take (reading revisions and the cluster, every build); past it the run ends UNKNOWN (exit 2), naming what was still being built. The live steps carried out without --dry-run are not counted.")
	f.BoolVar(&o.DryRun, "dry-run", false, "Only report and plan; change nothing.")
	f.BoolVar(&o.Offline, "offline", false, "Read no cluster: the Flux Kustomizations come from the repository.")
	f.BoolVar(&o.Orphans, "orphans", false, "List objects Flux applied that no Kustomization's inventory holds any more, with their age.")
	f.BoolVar(&o.Yes, "yes", false, "Without --dry-run, on a terminal only: carry out each step without asking (bound to no review; without a terminal use --confirm).")
	f.StringVar(&o.Confirm, "confirm", "", "Without --dry-run: carry out, without asking, the plan whose digest (sha256:<hex>) the dry run printed, and nothing if the plan computed now differs (exit 3, naming what changed).")
	f.BoolVar(&o.GitHubComment, "github-comment", false, githubCommentUsage)
	f.StringSliceVar(&o.PersistentKinds, "persistent-kind", nil, "Another kind that holds persistent state, as Kind or Kind.group (repeatable).")
	_ = cmd.MarkFlagDirname("repo")
	version.AddFlag(cmd)
	cmd.AddCommand(newCmdCharts(o.IOStreams, o.getenv))
	completion.RegisterFlags(cmd, o.ConfigFlags)
	return cmd
}

// Run plans req, carries out its live steps unless --dry-run or --orphans, prints, and returns
// the exit code.
func (o *SafeRetireOptions) Run(ctx context.Context, req *sr.Request) error {
	if req.Clients != nil {
		cli.Banner(o.ErrOut, req.Clients.Target)
	} else {
		fmt.Fprintln(o.ErrOut, "# offline: no cluster is read")
	}
	res, err := sr.Plan(ctx, *req)
	if err != nil {
		return err
	}
	if !o.Orphans {
		fmt.Fprintf(o.ErrOut, "# repository %s\n# base: %s, %s; candidate: %s\n", output.Sanitize(res.Repo),
			output.Sanitize(res.Base.String()), output.Sanitize(res.BaseHow), output.Sanitize(res.Candidate.String()))
		if l := res.Layout; l != nil {
			fmt.Fprintf(o.ErrOut, "# source root: %s (%s)", output.Sanitize(l.SourceRoot), output.Sanitize(l.SourceRootHow))
			if l.Entry != "" {
				fmt.Fprintf(o.ErrOut, "; entry: %s (%s)", output.Sanitize(l.Entry), output.Sanitize(l.EntryHow))
			}
			fmt.Fprintln(o.ErrOut)
		}
	}
	if !o.DryRun && !o.Orphans {
		if err := sr.Execute(ctx, *req, res); err != nil {
			return err
		}
	}
	if err := o.print(res); err != nil {
		return fmt.Errorf("printing result: %w", err)
	}
	if err := o.github(res); err != nil {
		return err
	}
	if err := o.comment(ctx, res); err != nil {
		return err
	}
	if code := res.Code(); code != exitcode.OK {
		return exitcode.WithCode(code, sr.RefusedError(res))
	}
	return nil
}

func (o *SafeRetireOptions) print(res *Result) error {
	if output.Format(o.PrintFlags.Format) == sarif.Format {
		return PrintSARIF(o.Out, res)
	}
	text := func(w io.Writer, p output.Palette) error { return sr.PrintText(w, res, p) }
	return o.PrintFlags.Print(o.Out, res, text, output.Graphs{})
}
