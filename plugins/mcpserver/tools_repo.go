package mcpserver

import (
	"context"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// FluxChainLintInput are the arguments of flux_chain_lint, as `flux-chain --repo` takes them.
type FluxChainLintInput struct {
	Repo       string   `json:"repo" jsonschema:"A directory in the repository's git working tree (absolute, or relative to the server's first repository root)."`
	Path       string   `json:"path,omitempty" jsonschema:"The entry path to build first, relative to the source root (default: detected)."`
	SourceRoot string   `json:"sourceRoot,omitempty" jsonschema:"The directory spec.paths are relative to, when Flux's source is an artifact pushed from a subdirectory (default: detected)."`
	FailOn     string   `json:"failOn,omitempty" jsonschema:"The least severity that makes the verdict FINDINGS: error (default), warning or info."`
	CRDs       []string `json:"crds,omitempty" jsonschema:"CRDs installed outside Flux, as an API group (monitoring.coreos.com) or GROUP/Kind."`
	Severity   []string `json:"severity,omitempty" jsonschema:"Rule severities, RULE=error|warning|info; they win over the repository's configuration file."`
}

// SafeRetirePlanInput are the arguments of safe_retire_plan, as `safe-retire --dry-run` takes them.
type SafeRetirePlanInput struct {
	Repo            string   `json:"repo" jsonschema:"A directory in the repository's git working tree (absolute, or relative to the server's first repository root)."`
	Base            string   `json:"base,omitempty" jsonschema:"The base revision (default: the merge-base with the upstream default branch, else HEAD~1)."`
	Candidate       string   `json:"candidate,omitempty" jsonschema:"The candidate revision (default: the working tree, uncommitted changes included)."`
	Path            string   `json:"path,omitempty" jsonschema:"The entry path relative to the source root (offline: whose build declares the Kustomizations; live: the root Kustomization's path). Default: detected."`
	SourceRoot      string   `json:"sourceRoot,omitempty" jsonschema:"The directory spec.paths are relative to (default: detected)."`
	Offline         bool     `json:"offline,omitempty" jsonschema:"Read no cluster: the Flux Kustomizations come from the repository."`
	Namespace       string   `json:"namespace,omitempty" jsonschema:"Live: only the Kustomizations of this namespace (default: all)."`
	PersistentKinds []string `json:"persistentKinds,omitempty" jsonschema:"More kinds that hold persistent state, as Kind or Kind.group."`
	Context         string   `json:"context,omitempty" jsonschema:"The kubeconfig context to read (or, offline, to name in printed commands); empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

// fluxChainLint is `kubectl flux-chain --repo` for one call: offline, no network.
func (s *server) fluxChainLint(ctx context.Context, _ *mcp.CallToolRequest, in FluxChainLintInput) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (report, error) {
		dir, err := s.roots.check(in.Repo)
		if err != nil {
			return report{}, err
		}
		s.log("flux_chain_lint", "repository "+dir)
		res, err := fluxchain.Lint(ctx, fluxchain.LintRequest{Repo: dir, Path: in.Path, SourceRoot: in.SourceRoot,
			FailOn: in.FailOn, CRDs: in.CRDs, Severity: in.Severity})
		if err != nil {
			return report{}, err
		}
		return report{value: res, verdict: res.Verdict, exitCode: res.ExitCode,
			text: func(w io.Writer, p output.Palette) error { return fluxchain.PrintRepoText(w, res, p) }}, nil
	})
}

// request is the dry run in asks for, of the repository at dir (checked against the roots),
// reading the cluster of clients (nil: offline) and naming target in printed commands. No
// cache is read or written and no network is used.
func (in SafeRetirePlanInput) request(dir string, clients *cluster.Clients, target cluster.Target) saferetire.Request {
	return saferetire.Request{Repo: dir, Base: in.Base, Candidate: in.Candidate, Path: in.Path, SourceRoot: in.SourceRoot,
		PersistentKinds: in.PersistentKinds, DryRun: true, Runtime: saferetire.Runtime{Clients: clients, Target: target}}
}

// safeRetirePlan is `kubectl safe-retire --dry-run` for one call; it never executes a step.
func (s *server) safeRetirePlan(ctx context.Context, _ *mcp.CallToolRequest, in SafeRetirePlanInput) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (report, error) {
		name, err := s.contexts.resolve(in.Context)
		if err != nil {
			return report{}, err
		}
		dir, err := s.roots.check(in.Repo)
		if err != nil {
			return report{}, err
		}
		flags := s.contexts.flags(name, in.Namespace)
		var clients *cluster.Clients
		where := "offline (no cluster read)"
		if !in.Offline {
			if clients, err = cluster.Connect(flags); err != nil {
				return report{}, err
			}
			where = clients.Target.String()
		}
		s.log("safe_retire_plan", strings.Join([]string{where, "repository", dir}, " "))
		res, err := saferetire.Plan(ctx, in.request(dir, clients, cluster.Offline(flags)))
		if err != nil {
			return report{}, err
		}
		return report{value: res, verdict: res.Verdict, exitCode: res.ExitCode,
			text: func(w io.Writer, p output.Palette) error { return saferetire.PrintText(w, res, p) }}, nil
	})
}
