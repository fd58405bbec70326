package fleet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/sarif"
)

// Command is a plugin command's fleet mode: cli.Steps over the selected contexts. The plugin
// fills in the fields; Complete, Validate and Run do the rest.
type Command[R any] struct {
	Flags       *Flags
	ConfigFlags *genericclioptions.ConfigFlags
	PrintFlags  *output.PrintFlags
	Streams     genericiooptions.IOStreams
	Plugin      Plugin[R]
	// Check validates the plugin's own arguments and flags for a fleet run; it makes no request.
	Check func(args []string) error
	// One runs the plugin's read-only analysis of the command's arguments on one context's
	// clients. Bad input it returns (a missing namespace, Flux not installed there) makes that
	// context UNKNOWN, not the run.
	One func(ctx context.Context, c *cluster.Clients, args []string) (R, error)
	// Text draws one context's result as the plugin's text printer does.
	Text func(io.Writer, R, output.Palette) error

	args     []string
	sel      *Selector
	selected []Context
	notes    []string
}

// RunE returns the cobra RunE that runs single when no fleet flag is given and the fleet
// steps when one is: the two modes are two cli.Steps, chosen by the flags the operator gave.
func RunE(single, fleet cli.Steps) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if Given(cmd.Flags()) {
			return cli.RunE(fleet)(cmd, args)
		}
		return cli.RunE(single)(cmd, args)
	}
}

// Complete reads the kubeconfig's contexts and selects them; it contacts no cluster.
func (c *Command[R]) Complete(args []string) error {
	c.args = args
	sel, err := c.Flags.Selector()
	if err != nil {
		return err
	}
	all, err := Contexts(c.ConfigFlags)
	if err != nil {
		return err
	}
	c.sel = sel
	c.selected, c.notes, err = Select(all, sel)
	return err
}

// Validate refuses what fleet mode cannot honour; it makes no request.
func (c *Command[R]) Validate() error {
	if err := c.PrintFlags.Validate(); err != nil {
		return err
	}
	if f := c.PrintFlags.Format; f != string(output.Text) && f != string(output.JSON) && f != string(output.YAML) {
		why := "draws one cluster's graph"
		if output.Format(f) == sarif.Format {
			why = "is for code scanning of a repository (flux-chain --repo, safe-retire --offline)"
		}
		return exitcode.UsageErrorf("-o %s %s: fleet mode prints text, json or yaml", f, why)
	}
	if err := c.Flags.Validate(c.ConfigFlags); err != nil {
		return err
	}
	return c.Check(c.args)
}

// Run prints the selection for --list-contexts; otherwise it runs every selected context,
// naming each connection on stderr as it starts and its verdict as it ends, prints the report
// and returns its exit code as an error.
func (c *Command[R]) Run(ctx context.Context) error {
	errOut := NewSyncWriter(c.Streams.ErrOut)
	for _, n := range c.notes {
		fmt.Fprintf(errOut, "# note: %s\n", output.Sanitize(n))
	}
	if c.Flags.ListContexts {
		l := NewContextList(c.sel, c.selected, c.notes)
		return c.PrintFlags.Print(c.Streams.Out, l, l.WriteText, output.Graphs{})
	}
	fmt.Fprintf(errOut, "# fleet: %d context(s) selected by %s, %d at a time, %s each\n",
		len(c.selected), output.Sanitize(c.sel.Text), c.Flags.Parallel, c.Flags.ContextTimeout)
	outcomes := Run(ctx, c.selected, Options{Parallel: c.Flags.Parallel, Timeout: c.Flags.ContextTimeout},
		func(ctx context.Context, k Context) (R, error) { return c.one(ctx, k, errOut) })
	rep := NewReport(c.Plugin, c.sel, outcomes)
	for i, e := range rep.Contexts {
		fmt.Fprintf(errOut, "# context %s: %s (exit %d) after %s\n", output.Sanitize(e.Context), e.Verdict, e.ExitCode, outcomes[i].Elapsed.Round(time.Millisecond))
	}
	text := func(w io.Writer, p output.Palette) error {
		return WriteText(w, rep, p, func(w io.Writer, r R) error { return c.Text(w, r, p) })
	}
	if err := c.PrintFlags.Print(c.Streams.Out, rep, text, output.Graphs{}); err != nil {
		return fmt.Errorf("printing result: %w", err)
	}
	if code := rep.Code(); code != exitcode.OK {
		return exitcode.WithCode(code, nil)
	}
	return nil
}

// one connects to the context named k with the run's flags and its own context, names the
// connection on stderr, and runs the plugin there.
func (c *Command[R]) one(ctx context.Context, k Context, errOut io.Writer) (R, error) {
	if k.Server == "" {
		// client-go would fall back to http://localhost:8080, some other server entirely.
		var zero R
		err := exitcode.UsageErrorf("context %s names no cluster with a server in the kubeconfig: not contacted", k.Name)
		fmt.Fprintf(errOut, "# context %s: %s\n", output.Sanitize(k.Name), output.Sanitize(err.Error()))
		return zero, err
	}
	cl, err := cluster.Connect(ForContext(c.ConfigFlags, k.Name, c.Flags.ContextTimeout))
	if err != nil {
		var zero R
		fmt.Fprintf(errOut, "# context %s: %s\n", output.Sanitize(k.Name), output.Sanitize(err.Error()))
		return zero, fmt.Errorf("context %s: %w", k.Name, err)
	}
	// The banner's lines in one write, escaped: not interleaved with another context's, and a
	// context name from a shared kubeconfig cannot forge a line.
	var banner bytes.Buffer
	cli.Banner(&banner, cl.Target)
	_ = output.WriteClean(errOut, banner.String(), output.Palette{})
	return c.One(ctx, cl, c.args)
}
