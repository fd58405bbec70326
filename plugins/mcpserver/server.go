// Package mcpserver is `kubeforensics-mcp`: the suite's analyses as tools of a Model Context
// Protocol server (stdio or streamable HTTP), for assistants that triage an outage. Each tool
// computes what its plugin computes and returns the plugin's own report envelope as typed
// structured content, with the plugin's text output beside it. Every tool only reads: there
// is no tool that deletes, no session-wide context, and a call may name only a context on the
// server's allow-list.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kubeforensics/suite/internal/allowlist"
	"github.com/kubeforensics/suite/internal/envelope"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/toolargs"
	"github.com/kubeforensics/suite/internal/version"
)

// Config is what a server is built from: the connection flags, the allow-lists and the bounds.
type Config struct {
	// Flags are kubectl's connection flags; --context picks the default context.
	Flags *genericclioptions.ConfigFlags
	// Contexts is the allow-list, in the syntax of the plugins' --contexts (fleet mode):
	// comma-separated RE2 expressions matched against the whole name, `^` excluding; ""
	// allows only the default context.
	Contexts string
	// RepoRoots are the directories whose repositories the repository tools may read.
	RepoRoots []string
	// CallTimeout bounds one tool call; past it the call's answer is UNKNOWN.
	CallTimeout time.Duration
	// MaxResultBytes bounds one answer (text and envelope); a larger one is refused.
	MaxResultBytes int
	// Parallel is how many calls compute at once; the others wait for a slot.
	Parallel int
	// Log receives one line per call naming the connection it reads (stderr).
	Log io.Writer
}

// server holds what the tool handlers share.
type server struct {
	cfg      Config
	contexts *allowlist.Contexts
	roots    allowlist.Roots
	slots    chan struct{}
	logMu    sync.Mutex
}

// NewServer builds the MCP server with its four tools. It reads the kubeconfig (for the
// allow-list) but contacts no cluster.
func NewServer(cfg Config) (*mcp.Server, error) {
	_, srv, err := build(cfg)
	return srv, err
}

// build is NewServer, also returning what the command's banner names.
func build(cfg Config) (*server, *mcp.Server, error) {
	if cfg.CallTimeout <= 0 || cfg.MaxResultBytes <= 0 || cfg.Parallel <= 0 {
		return nil, nil, exitcode.UsageErrorf("--call-timeout, --max-result-bytes and --parallel must be positive")
	}
	ctxs, err := allowlist.NewContexts(cfg.Flags, cfg.Contexts)
	if err != nil {
		return nil, nil, err
	}
	roots, err := allowlist.NewRoots(cfg.RepoRoots)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &server{cfg: cfg, contexts: ctxs, roots: roots, slots: make(chan struct{}, cfg.Parallel)}
	impl := &mcp.Implementation{Name: "kubeforensics", Title: "kubeforensics: why-terminating, flux-chain, safe-retire", Version: version.Get().Version}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: "Read-only analyses of a Kubernetes cluster and its Flux GitOps repositories. " +
			"Each result has a verdict and an exit code: 0 nothing found or safe, 1 a finding, 2 UNKNOWN (a read was incomplete: never treat it as safe), 3 bad input. " +
			"Printed commands are for a person to review and run; no tool changes anything.",
	})
	for _, t := range s.tools() {
		if err := t(srv); err != nil {
			return nil, nil, err
		}
	}
	return s, srv, nil
}

// readOnly are the annotations of every tool: it changes nothing, and repeating it changes
// nothing either. openWorld says whether it talks to a cluster (an open world of objects
// written by others) or only reads a local repository.
func readOnly(title string, openWorld bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &openWorld}
}

// addTool registers a tool whose output schema is the schema of the report type out and
// whose handler returns that report's escaped JSON. Schema failures are returned, not
// panicked. Arguments are checked against the input schema here rather than by the SDK, so
// that one that does not hold is refused as every bad input is: `bad input (exit 3)`, naming
// the argument; answers are checked against the output schema before they are sent.
func addTool[In any](srv *mcp.Server, t *mcp.Tool, out reflect.Type, h mcp.ToolHandlerFor[In, any]) error {
	schema, err := schemaOf(out)
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	outResolved, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	args, err := toolargs.NewChecker(t.Name, in)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	t.InputSchema, t.OutputSchema = in, schema
	srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var input In
		if err := args.Decode(req.Params.Arguments, &input); err != nil {
			return envelope.Error(err), nil
		}
		res, structured, err := h(ctx, req, input)
		if err != nil {
			return envelope.Error(err), nil
		}
		if structured == nil {
			return res, nil
		}
		raw, ok := structured.(json.RawMessage)
		if !ok {
			return nil, fmt.Errorf("tool %s: structured content of type %T", t.Name, structured)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("tool %s: structured content: %w", t.Name, err)
		}
		if err := outResolved.Validate(v); err != nil {
			return nil, fmt.Errorf("tool %s: validating tool output: %w", t.Name, err)
		}
		res.StructuredContent = raw
		return res, nil
	})
	return nil
}

// call runs one analysis within the server's bounds: a free slot, the call timeout, and an
// answer of at most MaxResultBytes. An analysis stopped by the timeout or by the client is
// UNKNOWN, whatever it had found so far.
func (s *server) call(ctx context.Context, analyse func(context.Context) (envelope.Report, error)) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		return envelope.Error(exitcode.UnknownErrorf("no analysis slot came free within %s (--parallel %d)", s.cfg.CallTimeout, s.cfg.Parallel)), nil, nil
	}
	rep, err := analyse(ctx)
	if ctx.Err() != nil {
		return envelope.Error(exitcode.UnknownErrorf("stopped before the analysis finished (%v; --call-timeout %s): the result is UNKNOWN", context.Cause(ctx), s.cfg.CallTimeout)), nil, nil
	}
	if err != nil {
		return envelope.Error(err), nil, nil
	}
	return envelope.Result(rep, s.cfg.MaxResultBytes)
}

// log writes one line about a call on the server's log: the tool and the connection it reads,
// as every plugin names it.
func (s *server) log(tool, target string) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = io.WriteString(s.cfg.Log, output.Sanitize(strings.Join([]string{"#", tool, "on", target}, " "))+"\n")
}
