package fluxchain

import (
	"context"

	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
)

// The plugin's Results and Requests are the chain package's: the command prints them, the MCP
// server and fleet mode plan with them, and docs/schema publishes their schemas.
type (
	// Result is the live chain (chain.Result).
	Result = chain.Result
	// RepoResult is the lint of a repository (chain.RepoResult).
	RepoResult = chain.RepoResult
	// Request is one reading of a cluster's chain (chain.Request).
	Request = chain.Request
	// RepoRequest is one lint of a repository (chain.RepoRequest).
	RepoRequest = chain.RepoRequest
)

// APIVersion is the apiVersion of the plugin's live reports and RepoAPIVersion of its --repo
// reports, published with their schemas in docs/schema (docs/report.md).
const (
	APIVersion     = chain.APIVersion
	RepoAPIVersion = chain.RepoAPIVersion
)

// Plan reads and judges the chain req names, as the command does (chain.Plan).
func Plan(ctx context.Context, req Request) (*Result, error) { return chain.Plan(ctx, req) }

// Compute is Plan of the chain in namespace ("" for all), focused on name when it is set,
// without --fail-on-progressing, stamped with clock's time (the system's when nil).
func Compute(ctx context.Context, c *cluster.Clients, namespace, name string, clock report.Clock) (*Result, error) {
	return Plan(ctx, Request{Namespace: namespace, Name: name, Clients: c, Clock: clock})
}

// LintRequest is one `flux-chain --repo` without the command line and without --live: the
// repository, its layout and the rule configuration. AllowNetwork is never set: remote bases
// leave their tier not built (UNKNOWN).
type LintRequest struct {
	Repo, Path, SourceRoot string
	// FailOn is the least severity that makes a finding fail the result ("" for error).
	FailOn string
	// Config, CRDs, CRDsFrom and Severity are --config, --crds, --crds-from and --severity.
	Config         string
	CRDs, CRDsFrom []string
	Severity       []string
	// Clock stamps the report; nil is the system clock.
	Clock report.Clock
}

// Lint plans the RepoResult `flux-chain --repo` prints: the values are the command's flags,
// turned into a RepoRequest by the same validation, so a bad value or a repository without a
// Flux Kustomization is a usage error (exit 3). It has no --timeout: the caller bounds ctx.
func Lint(ctx context.Context, req LintRequest) (*RepoResult, error) {
	r := repoOptions{Dir: req.Repo, Path: req.Path, SourceRoot: req.SourceRoot, FailOn: req.FailOn,
		NetworkTimeout: kbuild.DefaultNetworkTimeout}
	r.Config, r.CRDs, r.CRDsFrom, r.Severity = req.Config, req.CRDs, req.CRDsFrom, req.Severity
	if err := r.validate(); err != nil {
		return nil, err
	}
	if err := r.complete(); err != nil {
		return nil, err
	}
	rr, err := r.toRequest(req.Clock, nil)
	if err != nil {
		return nil, err
	}
	return chain.PlanRepo(ctx, rr)
}
