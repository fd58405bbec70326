package mcpserver

import (
	"context"
	"io"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/envelope"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/internal/terminating"
	"github.com/kubeforensics/suite/internal/toolargs"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

func (s *server) tools() []func(*mcp.Server) error {
	allowed := " Contexts: " + s.contexts.Describe() + "."
	return []func(*mcp.Server) error{
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "why_terminating",
				Description: "Explain what holds a Kubernetes object (or every Terminating object in a namespace or the cluster) in Terminating: " +
					"each finalizer, who removes it, the concrete objects that block it with their owners and GitOps owner, and the safe fix with what it costs. " +
					"verdict STUCK (exit 1), CLEAR (0) or UNKNOWN (2: a read failed, nothing may be concluded)." + allowed,
				Annotations: readOnly("Why is it Terminating?", true),
			}, reflect.TypeFor[whyterminating.Result](), s.whyTerminating)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "flux_chain",
				Description: "Show a cluster's Flux Kustomizations in dependsOn order: which fail for their own reason (root causes), which only wait on them, " +
					"what each failure freezes downstream, and the object a failing health check waits on (explained when it is stuck Terminating). " +
					"verdict FAILING (exit 1), HEALTHY (0) or UNKNOWN (2)." + allowed,
				Annotations: readOnly("Flux Kustomization chain", true),
			}, reflect.TypeFor[fluxchain.Result](), s.fluxChain)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "flux_chain_lint",
				Description: "Lint a Flux GitOps repository (a local git working tree) offline: build its entry path and every Kustomization's path as kustomize-controller would, " +
					"draw the chain and report rule findings with the file and line to fix. No cluster and no network is used; a tier that needs remote bases is not built (UNKNOWN). " +
					"verdict FINDINGS (exit 1), CLEAN (0) or UNKNOWN (2). Repositories: under " + s.roots.String() + ".",
				Annotations: readOnly("Lint a Flux repository", false),
			}, reflect.TypeFor[fluxchain.RepoResult](), s.fluxChainLint)
		},
		func(srv *mcp.Server) error {
			return addTool(srv, &mcp.Tool{
				Name: "safe_retire_plan",
				Description: "Dry run of safe-retire: compare what each Flux Kustomization builds to at a base and a candidate revision of a local repository " +
					"(and, unless offline, what the cluster's inventories hold), decide for every dropped object whether Flux prunes it, and refuse unprotected persistent state " +
					"with a staged plan (protect, drain, remove the manifest, delete by hand). Nothing is carried out. verdict UNSAFE (exit 1), SAFE (0) or UNKNOWN (2). " +
					"Repositories: under " + s.roots.String() + "." + allowed,
				Annotations: readOnly("Plan a safe retirement (dry run)", true),
			}, reflect.TypeFor[saferetire.Result](), s.safeRetirePlan)
		},
	}
}

// whyTerminating is `kubectl why-terminating` for one call.
func (s *server) whyTerminating(ctx context.Context, _ *mcp.CallToolRequest, in toolargs.WhyTerminating) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (envelope.Report, error) {
		req, err := in.ToRequest(s.contexts)
		if err != nil {
			return envelope.Report{}, err
		}
		s.log("why_terminating", req.Clients.Target.String())
		res, err := terminating.Plan(ctx, req)
		if err != nil {
			return envelope.Report{}, err
		}
		return envelope.Report{Value: res, Verdict: res.Verdict, ExitCode: res.ExitCode,
			Text: func(w io.Writer, p output.Palette) error { return whyterminating.PrintText(w, res, p) }}, nil
	})
}

// fluxChain is `kubectl flux-chain` (live) for one call.
func (s *server) fluxChain(ctx context.Context, _ *mcp.CallToolRequest, in toolargs.FluxChain) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (envelope.Report, error) {
		req, err := in.ToRequest(s.contexts)
		if err != nil {
			return envelope.Report{}, err
		}
		s.log("flux_chain", req.Clients.Target.String())
		res, err := chain.Plan(ctx, req)
		if err != nil {
			return envelope.Report{}, err
		}
		return envelope.Report{Value: res, Verdict: res.Verdict, ExitCode: res.ExitCode,
			Text: func(w io.Writer, p output.Palette) error { return fluxchain.PrintText(w, res, p) }}, nil
	})
}
