// Package whyterminating is the `kubectl why-terminating` command: it explains what holds an
// object, a namespace, or every Terminating object in the cluster, and how to release it safely.
package whyterminating

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/completion"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/fleet"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/terminating"
	"github.com/kubeforensics/suite/internal/version"
)

const example = `  # What holds the claim in Terminating, and how to release it
  kubectl why-terminating --context=prod pvc headlamp -n headlamp

  # The same object by its Flux inventory id, as a Kustomization's status lists it
  kubectl why-terminating --context=prod headlamp_headlamp__PersistentVolumeClaim

  # Why a namespace does not go away
  kubectl why-terminating --context=prod namespace legacy

  # Every Terminating object in one namespace, or in the whole cluster, as JSON
  kubectl why-terminating --context=prod -n headlamp
  kubectl why-terminating --context=prod -A -o json

  # Every Terminating object on every prod cluster but one, four contexts at a time
  kubectl why-terminating --contexts='prod-.*,^prod-legacy' -A`

// WhyTerminatingOptions holds the flags and inputs of one invocation.
type WhyTerminatingOptions struct {
	ConfigFlags   *genericclioptions.ConfigFlags
	PrintFlags    *output.PrintFlags
	AllNamespaces bool
	// Fleet are the flags of fleet mode (fleet.go): the same sweep over several contexts.
	Fleet fleet.Flags
	// Clock stamps the report's timestamp; nil is the system clock (tests fix it).
	Clock report.Clock
	genericiooptions.IOStreams

	// args are the object words (none: a sweep), checked by terminating.NewRequest.
	args    []string
	clients *cluster.Clients
}

// NewWhyTerminatingOptions returns options with kubectl's standard flags and text output.
func NewWhyTerminatingOptions(streams genericiooptions.IOStreams) *WhyTerminatingOptions {
	return &WhyTerminatingOptions{
		ConfigFlags: genericclioptions.NewConfigFlags(true),
		PrintFlags:  output.NewPrintFlags(output.Text, output.JSON, output.YAML),
		IOStreams:   streams,
	}
}

// NewCmdWhyTerminating builds the command.
func NewCmdWhyTerminating(streams genericiooptions.IOStreams) *cobra.Command {
	return newCmd(NewWhyTerminatingOptions(streams))
}

// NewCmdWhyTerminatingFromOptions builds the command on options made by
// NewWhyTerminatingOptions, for callers that set fields flags do not reach (the corpus sets
// Clock to replay a report that had been stuck for hours).
func NewCmdWhyTerminatingFromOptions(o *WhyTerminatingOptions) *cobra.Command {
	return newCmd(o)
}

// newCmd builds the command whose flags set o's fields (tests parse flags into o this way).
func newCmd(o *WhyTerminatingOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "why-terminating [TYPE NAME | TYPE/NAME | INVENTORY-ID | TYPE] [flags]",
		Short: "Explain what holds an object in Terminating and how to release it safely",
		Long: templates.LongDesc(`
			Explain, for each finalizer of a Terminating object, who removes it, the concrete objects
			that block it, their owners and GitOps owner, and the safe remediation with what it costs.
			Without arguments, explain every Terminating object in the namespace (-n) or the cluster
			(-A).`),
		Example:      templates.Examples(example),
		SilenceUsage: true,
		Args:         cli.ExactArgsRange(0, 2),
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl why-terminating"},
		RunE:         fleet.RunE(o, newFleet(o)),
	}
	o.ConfigFlags.AddFlags(cmd.Flags())
	o.PrintFlags.AddFlags(cmd)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "Explain every Terminating object in every namespace, and every cluster-scoped one.")
	o.Fleet.AddFlags(cmd.Flags())
	version.AddFlag(cmd)
	cmd.ValidArgsFunction = completion.ObjectArgs(o.ConfigFlags, &o.AllNamespaces)
	completion.RegisterFlags(cmd, o.ConfigFlags)
	return cmd
}

// Complete keeps the object words and opens the clients.
func (o *WhyTerminatingOptions) Complete(args []string) error {
	o.args = args
	c, err := cluster.Connect(o.ConfigFlags)
	if err != nil {
		return err
	}
	o.clients = c
	return nil
}

// Validate checks the output format; ToRequest, at the start of Run, checks the rest once.
func (o *WhyTerminatingOptions) Validate() error {
	return o.PrintFlags.Validate()
}

// ToRequest is the Request the completed options ask Plan for: the object words (none: a
// sweep), -A, the namespace of the clients, which read the cluster, and the clock, checked by
// terminating.NewRequest as the MCP tool's are. It makes no request.
func (o *WhyTerminatingOptions) ToRequest() (terminating.Request, error) {
	return terminating.NewRequest(o.args, o.AllNamespaces, o.clients, o.Clock)
}

// Run plans the result, prints it, and returns the exit code as an error.
func (o *WhyTerminatingOptions) Run(ctx context.Context) error {
	req, err := o.ToRequest()
	if err != nil {
		return err
	}
	cli.Banner(o.ErrOut, o.clients.Target)
	res, err := terminating.Plan(ctx, req)
	if err != nil {
		return err
	}
	if err := o.print(res); err != nil {
		return fmt.Errorf("printing result: %w", err)
	}
	if code := res.Code(); code != exitcode.OK {
		return exitcode.WithCode(code, nil)
	}
	return nil
}

func (o *WhyTerminatingOptions) print(res *Result) error {
	text := func(w io.Writer, p output.Palette) error { return PrintText(w, res, p) }
	return o.PrintFlags.Print(o.Out, res, text, output.Graphs{})
}
