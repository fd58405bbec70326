package fluxchain

import (
	"context"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/lint"
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
	if r.FailOn == "" {
		r.FailOn = "error"
	}
	r.Config, r.CRDs, r.CRDsFrom, r.Severity = req.Config, req.CRDs, req.CRDsFrom, req.Severity
	if err := r.validate("", false); err != nil {
		return nil, err
	}
	if err := r.complete(); err != nil {
		return nil, err
	}
	l := r.layout
	s := r.settings
	s.TopPath = l.FromTop
	res, err := computeRepo(ctx, l.Dir(r.root), r.Path, false, nil, s)
	if err != nil {
		return nil, err
	}
	res.Repo, res.Layout, res.Config, res.DeclaredCRDs = r.root, &l, r.path, s.CRDs.Len()
	for _, fs := range [][]lint.Finding{res.Lint, res.Suppressed} {
		for i := range fs {
			fs[i].File = l.FromTop(fs[i].File)
		}
	}
	res.FailOn = r.failOn
	res.finish()
	return res, nil
}
