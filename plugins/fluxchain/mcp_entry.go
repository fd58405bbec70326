package fluxchain

import (
	"context"

	"github.com/kubeforensics/suite/internal/kbuild"
)

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
}

// Lint computes the RepoResult `flux-chain --repo` prints, with the same validation: a bad
// flag value or a repository without a Flux Kustomization is a usage error (exit 3).
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
	return r.result(kbuild.WithSubstitutionBudget(ctx, kbuild.DefaultSubstitutionBudget), nil)
}
