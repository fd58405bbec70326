package saferetire

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	sr "github.com/kubeforensics/suite/internal/saferetire"
)

const chartsPullExample = `  # In CI, once before the gate: the charts the base and the head declare, into the cache
  # the gate reads offline (docs/ci.md restores and saves it with actions/cache)
  kubectl safe-retire charts pull --allow-network --revision origin/main --revision HEAD \
    --chart-cache "$RUNNER_TEMP/kubeforensics/charts"

  # What would be pulled, and the key of a CI cache holding it; nothing is fetched
  kubectl safe-retire charts pull --list

  # A fork's pull request: fetch only from sources the base revision declares
  kubectl safe-retire charts pull --allow-network --revision "$BASE" --revision HEAD --trusted-revision "$BASE"`

// ChartsPullOptions holds the flags and inputs of `safe-retire charts pull`.
type ChartsPullOptions struct {
	PrintFlags *output.PrintFlags
	genericiooptions.IOStreams

	Repo            string
	Revisions       []string
	TrustedRevision string
	ChartCacheDir   string
	AllowNetwork    bool
	List            bool
	NetworkTimeout  time.Duration
	Timeout         time.Duration

	// Clock stamps the report; nil is the system clock.
	Clock report.Clock

	cache *charts.Cache
}

// NewChartsPullOptions returns options with text output and the default chart cache.
func NewChartsPullOptions(streams genericiooptions.IOStreams, getenv func(string) string) *ChartsPullOptions {
	return &ChartsPullOptions{
		PrintFlags:     output.NewPrintFlags(output.Text, output.JSON, output.YAML),
		IOStreams:      streams,
		Repo:           ".",
		ChartCacheDir:  charts.DefaultCacheDir(getenv),
		NetworkTimeout: charts.DefaultTimeout,
		Timeout:        10 * time.Minute,
	}
}

// newCmdCharts is `safe-retire charts`, the group of chart commands.
func newCmdCharts(streams genericiooptions.IOStreams, getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{
		Use:          "charts",
		Short:        "Fill the chart cache the offline gate renders HelmReleases from",
		SilenceUsage: true,
		Args:         cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdChartsPull(streams, getenv))
	return cmd
}

// NewCmdChartsPull builds `safe-retire charts pull`; getenv is os.Getenv outside tests.
func NewCmdChartsPull(streams genericiooptions.IOStreams, getenv func(string) string) *cobra.Command {
	o := NewChartsPullOptions(streams, getenv)
	cmd := &cobra.Command{
		Use:   "pull --allow-network [--revision REV]... [--chart-cache DIR] [flags]",
		Short: "Fetch the charts a repository's HelmReleases declare into the chart cache, once, for offline gates",
		Long: templates.LongDesc(`
			Read the repository's YAML files at each --revision (default: the working tree) for
			HelmRepository, OCIRepository, HelmChart and HelmRelease objects, and fetch exactly
			the chart and version each HelmRelease installs from a HelmRepository or OCIRepository
			into the chart cache, from the source its repository declares. A version range is
			resolved against the source's index or tag list, which is kept in the cache too, so a
			later offline gate resolves the same range to the same version and says which.
			Nothing from the repository runs, no credentials are read, and every request is
			bounded in time and size. A chart that cannot be had is named, and the exit code is
			2 (the gate will be UNKNOWN on it if it needs it).`),
		Example:      templates.Examples(chartsPullExample),
		SilenceUsage: true,
		Args:         cobra.NoArgs,
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl safe-retire charts pull"},
		RunE:         cli.RunE(o),
	}
	o.PrintFlags.AddFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Repo, "repo", o.Repo, "A directory in the GitOps repository's git working tree.")
	f.StringArrayVar(&o.Revisions, "revision", nil, "A revision whose declarations to pull (repeatable; default: the working tree).")
	f.StringVar(&o.TrustedRevision, "trusted-revision", "", "Fetch only from source URLs this revision declares too (a fork's pull request: its base); a chart from any other source is refused and named.")
	f.StringVar(&o.ChartCacheDir, "chart-cache", o.ChartCacheDir, "The chart cache to fill (safe-retire's --chart-cache); must belong to you and be writable by nobody else.")
	f.BoolVar(&o.AllowNetwork, "allow-network", false, "Fetch: without it (or with --list) nothing is fetched.")
	f.BoolVar(&o.List, "list", false, "Only list what the revisions declare, and the key of a cache that holds it; fetch nothing.")
	f.DurationVar(&o.NetworkTimeout, "network-timeout", o.NetworkTimeout, "The longest one request (an index, a tag list, a chart) may take.")
	f.DurationVar(&o.Timeout, "timeout", o.Timeout, "The longest the whole pull may take; past it the charts not yet had are unavailable (exit 2).")
	_ = cmd.MarkFlagDirname("repo")
	return cmd
}

// Complete opens the chart cache.
func (o *ChartsPullOptions) Complete(_ []string) error {
	if o.List {
		return nil
	}
	if o.ChartCacheDir == "" {
		return exitcode.UsageErrorf("--chart-cache: no directory (and neither $XDG_CACHE_HOME nor $HOME is set)")
	}
	c, err := charts.OpenCache(o.ChartCacheDir)
	if err != nil {
		return exitcode.WithCode(exitcode.Usage, err)
	}
	o.cache = c
	return nil
}

// Validate checks flag combinations; it makes no request.
func (o *ChartsPullOptions) Validate() error {
	if err := o.PrintFlags.Validate(); err != nil {
		return err
	}
	switch {
	case !o.List && !o.AllowNetwork:
		return exitcode.UsageErrorf("charts pull fetches over the network: add --allow-network (or --list to fetch nothing)")
	case o.NetworkTimeout <= 0 || o.Timeout <= 0:
		return exitcode.UsageErrorf("--network-timeout and --timeout must be positive")
	}
	return nil
}

// Run reads the declarations, pulls each chart, prints, and returns the exit code.
func (o *ChartsPullOptions) Run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	res, err := sr.PullCharts(ctx, sr.ChartsPullRequest{Repo: o.Repo, Revisions: o.Revisions, TrustedRevision: o.TrustedRevision,
		List: o.List, NetworkTimeout: o.NetworkTimeout, Cache: o.cache, Clock: o.Clock, Log: o.ErrOut})
	if err != nil {
		return err
	}
	text := func(w io.Writer, _ output.Palette) error { return renderChartsPull(w, res) }
	if err := o.PrintFlags.Print(o.Out, res, text, output.Graphs{}); err != nil {
		return fmt.Errorf("printing result: %w", err)
	}
	if res.ExitCode != 0 {
		return exitcode.WithCode(exitcode.Code(res.ExitCode), nil)
	}
	return nil
}

// renderChartsPull prints one line per chart: its status, what was declared, and what it came to.
func renderChartsPull(w io.Writer, res *sr.ChartsPullResult) error {
	var b strings.Builder
	for _, c := range res.Charts {
		v := c.Version
		if v == "" {
			v = "(latest)"
		}
		fmt.Fprintf(&b, "%-11s %s %s from %s <%s>", c.Status, c.Chart, v, c.Source, c.URL)
		if c.Pin != nil {
			fmt.Fprintf(&b, ": %s", c.Pin)
		} else if c.Got != "" && c.Got != c.Version {
			fmt.Fprintf(&b, ": %s", c.Got)
		}
		if c.Digest != "" {
			fmt.Fprintf(&b, " (%s)", c.Digest)
		}
		if c.Reason != "" {
			fmt.Fprintf(&b, ": %s", c.Reason)
		}
		fmt.Fprintf(&b, "\n            declared in %s at %s\n", strings.Join(c.Files, ", "), strings.Join(c.Revisions, ", "))
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&b, "skipped     %s (%s): %s\n", s.Object, s.File, s.Reason)
	}
	fmt.Fprintf(&b, "%s: %d downloaded, %d cached, %d unavailable, %d refused; cache key %s\n",
		res.Verdict, res.Summary.Downloaded, res.Summary.Cached, res.Summary.Unavailable, res.Summary.Refused, res.Key)
	_, err := io.WriteString(w, output.Clean(b.String(), output.Palette{}))
	return err
}
