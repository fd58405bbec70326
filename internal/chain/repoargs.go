package chain

import (
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/lint"
)

// RepoArgs are the values one lint of a repository is asked with, as `flux-chain --repo` and
// the MCP tool flux_chain_lint take them, before anything is read.
type RepoArgs struct {
	// Dir is a directory in the repository's git working tree; SourceRoot the directory
	// spec.paths are relative to and Path the entry path ("" for both is detected).
	Dir, SourceRoot, Path string
	// FailOn is the least severity (and, with Base, the scope) that fails the result, as
	// --fail-on takes it; Base the revision the working tree is compared with ("" for none).
	FailOn, Base string
	// Config is the configuration file ("" for the repository's own, when it has one) and
	// Declared what the caller declares beside it: CRDs installed outside Flux and severities.
	Config   string
	Declared lint.Declared
}

// OpenRepoRequest is the RepoRequest of a: FailOn read by ParseFailOn, the repository opened
// and its layout detected by OpenRepo, its settings read by LoadSettings. It is the one check of
// those values, which the command line and the MCP tool make alike; each that cannot be
// honoured, and a repository without a Flux Kustomization, is bad input (exit 3). The request
// fetches nothing (NetworkTimeout is the default, for a caller that allows the network) and has
// no chart renderer, live comparison or clock: those are the caller's to add.
func OpenRepoRequest(a RepoArgs) (RepoRequest, error) {
	sev, scope, err := ParseFailOn(a.FailOn, a.Base != "")
	if err != nil {
		return RepoRequest{}, exitcode.UsageErrorf("--fail-on: %w", err)
	}
	repo, layout, err := OpenRepo(a.Dir, a.SourceRoot, a.Path)
	if err != nil {
		return RepoRequest{}, err
	}
	settings, path, err := LoadSettings(repo.Dir, a.Config, a.Declared)
	if err != nil {
		return RepoRequest{}, err
	}
	return RepoRequest{Repo: repo, Root: repo.Dir, Layout: layout, Settings: settings, ConfigPath: path,
		FailOn: sev, FailScope: scope, Base: a.Base, NetworkTimeout: kbuild.DefaultNetworkTimeout}, nil
}
