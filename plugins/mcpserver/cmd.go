package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/kubectl/pkg/util/templates"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/version"
)

const example = `  # For an assistant that starts the server itself (stdio), on the current context only
  kubeforensics-mcp

  # Two more contexts a call may name, and the repositories under ~/src that the lint may read
  kubeforensics-mcp --contexts 'staging|prod-.*' --repo-root ~/src

  # Streamable HTTP on the loopback interface, at http://127.0.0.1:8808/mcp
  kubeforensics-mcp --http 127.0.0.1:8808`

// Defaults of the bounds.
const (
	defaultCallTimeout    = 5 * time.Minute
	defaultMaxResultBytes = 512 << 10
	defaultParallel       = 2
	// maxRequestLine bounds one JSON-RPC message read on stdio.
	maxRequestLine = 1 << 20
)

// MCPServerOptions holds the flags of one server process.
type MCPServerOptions struct {
	ConfigFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	Config
	// HTTP is the address to serve streamable HTTP on; "" serves stdio.
	HTTP string
	// AllowRemoteHTTP allows an HTTP address that is not loopback.
	AllowRemoteHTTP bool
	// AllowOrigins are the exact origins (scheme://host[:port]) whose requests HTTP serves
	// besides the loopback ones and those without an Origin header.
	AllowOrigins []string

	server *mcp.Server
	// allowed says which contexts calls may name, for the banner.
	allowed string
}

// NewMCPServerOptions returns options with kubectl's connection flags (less --namespace, which
// each call gives) and the default bounds; the repository root defaults to the working
// directory.
func NewMCPServerOptions(streams genericiooptions.IOStreams) *MCPServerOptions {
	flags := genericclioptions.NewConfigFlags(true)
	flags.Namespace = nil
	return &MCPServerOptions{ConfigFlags: flags, IOStreams: streams,
		Config: Config{CallTimeout: defaultCallTimeout, MaxResultBytes: defaultMaxResultBytes, Parallel: defaultParallel}}
}

// NewCmdMCPServer builds the `kubeforensics-mcp` command.
func NewCmdMCPServer(streams genericiooptions.IOStreams) *cobra.Command {
	o := NewMCPServerOptions(streams)
	cmd := &cobra.Command{
		Use:   "kubeforensics-mcp [flags]",
		Short: "Serve why-terminating, flux-chain, flux-chain --repo and safe-retire --dry-run as read-only MCP tools",
		Long: templates.LongDesc(`
			Serve the suite's analyses as tools of a Model Context Protocol server, on stdio (default)
			or streamable HTTP (--http): why_terminating, flux_chain, flux_chain_lint and
			safe_retire_plan. Every tool only reads. Each call may name a kubeconfig context, which
			must be on the allow-list (--contexts; default: only the current context); the repository
			tools read only repositories under --repo-root. Each answer carries the plugin's report
			envelope (verdict and exit code) as structured content and the plugin's text output.
			SIGINT or SIGTERM stops the server; on stdio, so does the client closing the stream.`),
		Example:      templates.Examples(example),
		Args:         cli.ExactArgsRange(0, 0),
		SilenceUsage: true,
		Annotations:  map[string]string{cobra.CommandDisplayNameAnnotation: "kubeforensics-mcp"},
		RunE:         cli.RunE(o),
	}
	o.ConfigFlags.AddFlags(cmd.Flags())
	f := cmd.Flags()
	f.StringVar(&o.Contexts, "contexts", "", "The contexts a call may name, as the plugins' --contexts selects them: comma-separated RE2 expressions, each matched against the whole context name, one starting with ^ excluding ('prod-.*,^prod-legacy'; default: only the current context, or --context).")
	f.StringArrayVar(&o.RepoRoots, "repo-root", nil, "A directory whose git repositories flux_chain_lint and safe_retire_plan may read; repeatable, each taken whole (a comma is part of the path; default: the working directory).")
	f.StringVar(&o.HTTP, "http", "", "Serve streamable HTTP on this address (host:port, loopback only unless --allow-remote-http) at /mcp, instead of stdio.")
	f.BoolVar(&o.AllowRemoteHTTP, "allow-remote-http", false, "Allow --http on an address that is not loopback. The server has no authentication: whoever reaches it reads the clusters with the server's credentials.")
	f.StringArrayVar(&o.AllowOrigins, "allow-origin", nil, "An exact origin (scheme://host[:port]) whose requests --http serves besides loopback origins and requests without an Origin header; repeatable. Any other Origin is refused with 403.")
	f.DurationVar(&o.CallTimeout, "call-timeout", o.CallTimeout, "The longest one tool call may take; a call stopped by it is UNKNOWN.")
	f.IntVar(&o.MaxResultBytes, "max-result-bytes", o.MaxResultBytes, "The largest answer a call returns (text and envelope); a larger one is refused with its verdict.")
	f.IntVar(&o.Parallel, "parallel", o.Parallel, "How many tool calls compute at once; the others wait for a slot.")
	version.AddFlag(cmd)
	return cmd
}

// Complete builds the server: the allow-list from the kubeconfig and the repository roots.
func (o *MCPServerOptions) Complete(_ []string) error {
	o.Flags, o.Log = o.ConfigFlags, o.ErrOut
	if len(o.RepoRoots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("reading the working directory: %w", err)
		}
		o.RepoRoots = []string{wd}
	}
	s, srv, err := build(o.Config)
	if err != nil {
		return err
	}
	o.server, o.allowed = srv, s.contexts.Describe()
	return nil
}

// Validate checks the HTTP address (without listening) and the allowed origins.
func (o *MCPServerOptions) Validate() error {
	if o.HTTP == "" {
		if len(o.AllowOrigins) > 0 {
			return exitcode.UsageErrorf("--allow-origin applies to --http only")
		}
		return nil
	}
	if err := checkOrigins(o.AllowOrigins); err != nil {
		return err
	}
	return checkListenAddress(o.HTTP, o.AllowRemoteHTTP)
}

// Run serves until SIGINT or SIGTERM, or on stdio until the client closes the stream. A stop
// by either is the normal end of a server, not a failure.
func (o *MCPServerOptions) Run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(o.ErrOut, "# kubeforensics-mcp %s; calls may read %s\n", version.Get().Version, o.allowed)
	if o.HTTP != "" {
		return serveHTTP(ctx, o.server, o.HTTP, o.AllowOrigins, o.ErrOut)
	}
	fmt.Fprintln(o.ErrOut, "# serving MCP on stdio")
	if f, ok := o.Out.(*os.File); ok && f == os.Stdout {
		// The protocol owns stdout: a library that printed there would corrupt the stream,
		// so anything printed to os.Stdout while serving goes to stderr instead.
		os.Stdout = os.Stderr
		defer func() { os.Stdout = f }()
	}
	err := serveStdio(ctx, o.server, o.In, o.Out)
	if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return exitcode.WithCode(exitcode.Unknown, fmt.Errorf("serving MCP on stdio: %w", err))
}
