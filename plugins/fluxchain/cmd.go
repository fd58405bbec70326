// Package fluxchain is the `kubectl flux-chain` command: it shows a cluster's Flux
// Kustomizations in dependsOn order, names the ones that fail for their own reason, the ones
// frozen behind them, and what the failure message points at.
package fluxchain

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/completion"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sarif"
	"github.com/kubeforensics/suite/internal/version"
)

const example = `  # The chain in flux-system: tiers, root causes and what they block
  kubectl flux-chain --context=prod

  # Every Kustomization in the cluster
  kubectl flux-chain --context=prod -A

  # One Kustomization with its upstream and downstream
  kubectl flux-chain --context=prod apps -n flux-system

  # The chain on every context of the kubeconfig whose name starts with prod-, one report
  kubectl flux-chain --contexts='prod-.*' -A

  # The graph as Graphviz, rendered to SVG
  kubectl flux-chain --context=prod -A -o dot | dot -Tsvg > chain.svg

  # The full result for scripts
  kubectl flux-chain --context=prod -A -o json | jq '.rootCauses[].kustomization'

  # Lint a GitOps repository's chain before it reaches a cluster (no cluster needed)
  kubectl flux-chain --repo . --path clusters/prod --fail-on warning

  # The lint as SARIF, for GitHub code scanning (docs/sarif.md)
  kubectl flux-chain --repo . -o sarif > flux-chain.sarif

  # Compare the repository with what the cluster runs (read-only)
  kubectl flux-chain --repo . --live --context prod --fail-on warning

  # A repository pushed as an OCI artifact from k8s/, whose root Kustomization only the cluster has
  kubectl flux-chain --repo . --source-root k8s --path clusters/prod`

// FluxChainOptions holds the flags and inputs of one flux-chain run. It has two modes, each
// with its own flags, validation and exit codes: the live chain (live) and, with --repo, the
// lint of a repository (repo, repo.go). Each mode's validation refuses the other's flags.
type FluxChainOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *output.PrintFlags
	genericiooptions.IOStreams

	// Fleet are the flags of fleet mode (fleet.go): the live chain over several contexts.
	Fleet fleet.Flags
	// Clock stamps the report's timestamp; nil is the system clock (tests fix it).
	Clock report.Clock

	live    liveOptions
	repo    repoOptions
	comment commentOptions
	clients *cluster.Clients
}

// liveOptions are the inputs of the live chain: which Kustomizations to read.
type liveOptions struct {
	AllNamespaces bool
	// Name is the Kustomization to focus on; "" shows the whole chain.
	Name string
	// FailOnProgressing makes a reconciliation in progress fail the run (exit 1), for gates
	// that must not pass while a release is still rolling out.
	FailOnProgressing bool
	// namespace is the namespace read, settled by Complete ("" for all).
	namespace string
}

func (l *liveOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&l.AllNamespaces, "all-namespaces", "A", false, "Show Kustomizations in all namespaces.")
	cmd.Flags().BoolVar(&l.FailOnProgressing, "fail-on-progressing", false, "Exit 1 while a Kustomization or HelmRelease is still reconciling within its timeout (PROGRESSING exits 0 without it).")
}

// validate checks the live chain's inputs; the lint of a repository (repoMode) takes none.
func (l *liveOptions) validate(repoMode bool) error {
	switch {
	case repoMode && (l.Name != "" || l.AllNamespaces):
		return exitcode.UsageErrorf("--repo lints the whole repository: it takes no NAME and no -A")
	case repoMode && l.FailOnProgressing:
		return exitcode.UsageErrorf("--fail-on-progressing judges a live chain: --repo lints a repository, which has no reconciliation in progress")
	}
	return chain.CheckFocus(l.Name, l.AllNamespaces)
}

// NewFluxChainOptions returns options with kubectl's connection flags and text output.
func NewFluxChainOptions(streams genericiooptions.IOStreams) *FluxChainOptions {
	return &FluxChainOptions{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		PrintFlags:  output.NewPrintFlags(output.Text, output.JSON, output.YAML, output.Dot, output.Mermaid, sarif.Format),
		IOStreams:   streams,
	}
}

// NewCmdFluxChain builds the `kubectl flux-chain` command.
func NewCmdFluxChain(streams genericiooptions.IOStreams) *cobra.Command {
	return newCmd(NewFluxChainOptions(streams))
}

// newCmd builds the command whose flags set o's fields (tests parse flags into o this way).
func newCmd(o *FluxChainOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "flux-chain [NAME]",
		Short: "Show the Flux Kustomization dependency chain, its root failures and their blast radius",
		Long: templates.LongDesc(`
			Show Flux Kustomizations in dependsOn order (topological tiers), tell the ones that fail for
			their own reason from the ones that only wait on them, list every Kustomization each failure
			freezes, and follow the failure message to the objects it names — explaining the ones stuck
			Terminating.

			Exit codes: 0 every Kustomization Ready at its source's revision, 1 a failing or waiting
			tier or another finding, 2 an incomplete read or a readyExpr that did not evaluate, 3 bad
			input (including Flux not installed).

			With --repo, lint a repository instead: build its entry path and every Kustomization's path
			as kustomize-controller would, draw the same chain and report rule findings with the file
			and line to fix. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 a path did not
			build, 3 bad input. --live also compares the repository with the cluster (Kustomizations on
			one side only, spec.path or dependsOn drift, CRDs of kinds the repository uses that only the
			cluster has) as live-* findings; a live read that fails makes the result incomplete (exit
			2).`),
		Example:      templates.Examples(example),
		Args:         cli.ExactArgsRange(0, 1),
		SilenceUsage: true,
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl flux-chain"},
		RunE:         fleet.RunE(o, newFleet(o)),
	}
	o.ConfigFlags.AddFlags(cmd.Flags())
	o.PrintFlags.AddFlags(cmd)
	o.live.addFlags(cmd)
	o.repo.addFlags(cmd)
	o.comment.addFlags(cmd)
	o.Fleet.AddFlags(cmd.Flags())
	version.AddFlag(cmd)
	cmd.ValidArgsFunction = completion.Kustomizations(o.ConfigFlags, chain.DefaultNamespace, &o.live.AllNamespaces)
	completion.RegisterFlags(cmd, o.ConfigFlags)
	return cmd
}

// Complete connects to the cluster and settles the namespace (chain.NamespaceOf): -n, else
// flux-system; none with -A.
func (o *FluxChainOptions) Complete(args []string) error {
	if err := o.validateSARIF(); err != nil {
		return err
	}
	if len(args) == 1 {
		o.live.Name = args[0]
	}
	if o.repo.Dir != "" {
		if err := o.repo.complete(); err != nil {
			return err
		}
		if err := o.comment.complete(&o.repo, o.repo.getenv); err != nil || !o.repo.Live {
			return err
		}
		return o.completeLive()
	}
	if err := o.comment.complete(&o.repo, nil); err != nil {
		return err
	}
	c, err := cluster.Connect(o.ConfigFlags)
	if err != nil {
		return err
	}
	o.clients, o.live.namespace = c, chain.NamespaceOf(c, o.live.AllNamespaces)
	return nil
}

// Validate checks the flags of the mode --repo chose, and that none of the other mode's is
// given, without touching the cluster or changing the options.
func (o *FluxChainOptions) Validate() error {
	if err := o.PrintFlags.Validate(); err != nil {
		return err
	}
	if err := o.validateSARIF(); err != nil {
		return err
	}
	if err := o.live.validate(o.repo.Dir != ""); err != nil {
		return err
	}
	return o.repo.validate()
}

// ToRequest is the live chain's Request on the clients c: the Kustomizations of namespace
// ("" for all), focused on name ("" for none), and --fail-on-progressing. The flags are
// checked by Validate (fleet mode: its Check) before any request.
func (o *FluxChainOptions) ToRequest(c *cluster.Clients, namespace, name string) chain.Request {
	return chain.Request{Namespace: namespace, Name: name, FailOnProgressing: o.live.FailOnProgressing, Clients: c, Clock: o.Clock}
}

// Run reads the chain, prints it and returns the exit code as an error.
func (o *FluxChainOptions) Run(ctx context.Context) error {
	if o.repo.Dir != "" {
		return o.runRepo(ctx)
	}
	cli.Banner(o.ErrOut, o.clients.Target)
	res, err := chain.Plan(ctx, o.ToRequest(o.clients, o.live.namespace, o.live.Name))
	if err != nil {
		return err
	}
	if err := o.print(res); err != nil {
		return err
	}
	return exitError(res.ExitCode)
}

// print hands the result to the printer -o chose.
func (o *FluxChainOptions) print(res *Result) error {
	text := func(w io.Writer, p output.Palette) error { return PrintText(w, res, p) }
	return o.PrintFlags.Print(o.Out, res, text, output.Graphs{
		Dot:     func(w io.Writer) error { return PrintDot(w, res) },
		Mermaid: func(w io.Writer) error { return PrintMermaid(w, res) },
	})
}

// completeLive connects to the cluster for --live: all namespaces unless -n names one.
func (o *FluxChainOptions) completeLive() error {
	c, err := cluster.Connect(o.ConfigFlags)
	if err != nil {
		return err
	}
	o.clients, o.live.namespace = c, ""
	if c.NamespaceExplicit {
		o.live.namespace = c.Namespace
	}
	return nil
}

// exitError is the error that carries a result's exit code to main; nil for OK.
func exitError(code int) error {
	if code == int(exitcode.OK) {
		return nil
	}
	return exitcode.WithCode(exitcode.Code(code), nil)
}
