// Package cli runs one plugin command as a process: it wires standard streams, executes the
// cobra command, prints a failure once and turns the outcome into the suite's exit code. It is
// the only place that knows about processes; commands below it return errors and results.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/progress"
)

// NewCmdFunc builds a plugin's root command for the given streams.
type NewCmdFunc func(genericiooptions.IOStreams) *cobra.Command

// Main runs the command built by newCmd with os.Args and returns the exit code for os.Exit.
// The executable's name picks the form (FormOf): started as flux-chain, help says `flux chain`.
func Main(newCmd NewCmdFunc) int {
	return MainAs(newCmd, FormOf(os.Args[0]))
}

// MainAs is Main with the form given rather than taken from the executable's name.
//
// SIGINT and SIGTERM cancel the run's context: reads and builds stop, temporary snapshots
// are removed as the command returns, and the run ends UNKNOWN (exit 2) saying which signal
// stopped it. A second signal ends the process at once.
func MainAs(newCmd NewCmdFunc, f Form) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errOut, restore := quietKustomize()
	defer restore()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: errOut}
	go func() {
		<-ctx.Done()
		if ctx.Err() != nil && context.Cause(ctx) != context.Canceled {
			fmt.Fprintf(streams.ErrOut, "# %v: stopping (a second signal ends the process at once)\n", context.Cause(ctx))
		}
		stop() // the default action again for the next signal
	}()
	return Run(ctx, As(newCmd(streams), f), os.Args[1:], streams.ErrOut)
}

// Serve runs a long-lived command built by newCmd (the MCP server) with os.Args and returns
// the exit code for os.Exit. Unlike MainAs it leaves SIGINT and SIGTERM to the command, whose
// normal end they are, so its context is never cancelled; like MainAs it keeps kustomize's
// deprecation warnings off the process's stderr (quietKustomize): every build a tool call runs
// would write them there again.
func Serve(newCmd NewCmdFunc) int {
	errOut, restore := quietKustomize()
	defer restore()
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: errOut}
	return Run(context.Background(), newCmd(streams), os.Args[1:], errOut)
}

// quietKustomize drops, from the process's stderr, the deprecation warning kustomize writes
// straight there on every build that meets one (quietStderr with
// kbuild.IsKustomizeDeprecation); the builds note each one (progress.Warn), said once at the
// end of a run (Run). It returns the real stderr, for the process's own
// messages, and restore; when stderr cannot be redirected it says so and returns os.Stderr.
func quietKustomize() (*os.File, func()) {
	errOut, restore, err := quietStderr(kbuild.IsKustomizeDeprecation)
	if err != nil {
		fmt.Fprintf(os.Stderr, "# kustomize's deprecation warnings are not gathered (%v): they may repeat once per build\n", err)
		return os.Stderr, func() {}
	}
	return errOut, restore
}

// Run executes cmd with args, prints any error once to errOut, and returns the exit code.
// A run whose context ended before it finished is UNKNOWN, whatever it returned: what it
// printed may be partial. Tests call it directly with their own streams.
func Run(ctx context.Context, cmd *cobra.Command, args []string, errOut io.Writer) int {
	// client-go logs some failures through klog before returning them; the command reports
	// every error itself, once, so the duplicate log lines are dropped.
	klog.SetLogger(logr.Discard())
	cmd.SilenceErrors = true
	cmd.SilenceUsage = true
	cmd.SetArgs(args)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return exitcode.WithCode(exitcode.Usage, err)
	})
	ctx, warnings := progress.CollectWarnings(ctx)
	err := cmd.ExecuteContext(ctx)
	for _, w := range warnings.Lines("build") {
		_ = output.WriteClean(errOut, "# warning: "+w+"\n", output.Palette{})
	}
	if ctx.Err() != nil {
		fmt.Fprintf(errOut, "error: stopped before the run finished (%v): the result is UNKNOWN\n", context.Cause(ctx))
		return int(exitcode.Unknown)
	}
	if err == nil {
		return int(exitcode.OK)
	}
	var e *exitcode.Error
	if !errors.As(err, &e) || !e.Silent() || err != error(e) {
		// An error can quote a repository's file or a server's message: escape it like output.
		_ = output.WriteClean(errOut, "error: "+err.Error()+"\n", output.Palette{})
	}
	return int(exitcode.Of(err))
}

// ExactArgsRange is cobra's RangeArgs with a usage (exit 3) error.
func ExactArgsRange(minArgs, maxArgs int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(minArgs, maxArgs)(cmd, args); err != nil {
			return exitcode.WithCode(exitcode.Usage, err)
		}
		return nil
	}
}

// Banner tells the operator, on stderr, which cluster the answer is about.
func Banner(w io.Writer, t cluster.Target) {
	fmt.Fprintf(w, "# %s\n", output.Sanitize(t.String()))
	if note := t.CredentialsNote(); note != "" {
		fmt.Fprintf(w, "# %s\n", output.Sanitize(note))
	}
}

// Steps are a plugin command's three phases, in kubectl's order: Complete fills in what the
// flags and arguments leave open (clients, namespace), Validate checks the combination without
// a request, Run computes and prints.
type Steps interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// RunE is the cobra RunE of a command with those steps: each in turn, stopping at the first error.
func RunE(s Steps) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := s.Complete(args); err != nil {
			return err
		}
		if err := s.Validate(); err != nil {
			return err
		}
		return s.Run(cmd.Context())
	}
}
