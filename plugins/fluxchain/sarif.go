package fluxchain

import (
	"io"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/sarif"
)

// validateSARIF refuses -o sarif outside --repo: only a repository's findings have a file and
// line to be placed at. It runs before Complete connects to anything.
func (o *FluxChainOptions) validateSARIF() error {
	if output.Format(o.PrintFlags.Format) == sarif.Format && o.repo.Dir == "" {
		return exitcode.UsageErrorf("-o sarif is for linting a repository (--repo), whose findings are located in it")
	}
	return nil
}

// PrintRepoSARIF writes the lint of a repository as SARIF 2.1.0 (chain.RepoResult.SARIF).
func PrintRepoSARIF(w io.Writer, res *RepoResult) error {
	return sarif.Write(w, res.SARIF())
}
