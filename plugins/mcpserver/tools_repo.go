package mcpserver

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/envelope"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/saferetire"
	"github.com/kubeforensics/suite/internal/toolargs"
	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// fluxChainLint is `kubectl flux-chain --repo` for one call: offline, no network.
func (s *server) fluxChainLint(ctx context.Context, _ *mcp.CallToolRequest, in toolargs.FluxChainLint) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (envelope.Report, error) {
		req, err := in.ToRequest(s.roots)
		if err != nil {
			return envelope.Report{}, err
		}
		s.log("flux_chain_lint", "repository "+req.Root)
		res, err := chain.PlanRepo(ctx, req)
		if err != nil {
			return envelope.Report{}, err
		}
		return envelope.Report{Value: res, Verdict: res.Verdict, ExitCode: res.ExitCode,
			Text: func(w io.Writer, p output.Palette) error { return fluxchain.PrintRepoText(w, res, p) }}, nil
	})
}

// safeRetirePlan is `kubectl safe-retire --dry-run` for one call; it never executes a step.
func (s *server) safeRetirePlan(ctx context.Context, _ *mcp.CallToolRequest, in toolargs.SafeRetirePlan) (*mcp.CallToolResult, any, error) {
	return s.call(ctx, func(ctx context.Context) (envelope.Report, error) {
		req, err := in.ToRequest(s.contexts, s.roots)
		if err != nil {
			return envelope.Report{}, err
		}
		where := "offline (no cluster read)"
		if req.Clients != nil {
			where = req.Clients.Target.String()
		}
		s.log("safe_retire_plan", where+" repository "+req.Repo)
		res, err := saferetire.Plan(ctx, req)
		if err != nil {
			return envelope.Report{}, err
		}
		return envelope.Report{Value: res, Verdict: res.Verdict, ExitCode: res.ExitCode,
			Text: func(w io.Writer, p output.Palette) error { return saferetire.PrintText(w, res, p) }}, nil
	})
}
