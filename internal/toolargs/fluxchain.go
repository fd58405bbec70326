package toolargs

import (
	"github.com/kubeforensics/suite/internal/allowlist"
	"github.com/kubeforensics/suite/internal/chain"
	"github.com/kubeforensics/suite/internal/lint"
)

// FluxChain are the arguments of flux_chain, as `kubectl flux-chain` takes them.
type FluxChain struct {
	Name          string `json:"name,omitempty" jsonschema:"One Kustomization to focus on, with what it depends on and what waits on it; empty for the whole chain."`
	Namespace     string `json:"namespace,omitempty" jsonschema:"The namespace of the Kustomizations (default flux-system)."`
	AllNamespaces bool   `json:"allNamespaces,omitempty" jsonschema:"Kustomizations in every namespace."`
	Context       string `json:"context,omitempty" jsonschema:"The kubeconfig context to read; empty for the server's default. Only contexts on the server's allow-list are accepted."`
}

// ToRequest is the live chain's Request of the call, read on its context, which allowed must
// allow: its scope checked by chain.CheckFocus and its namespace settled by chain.NamespaceOf,
// as the command's are.
func (in FluxChain) ToRequest(allowed *allowlist.Contexts) (chain.Request, error) {
	if err := chain.CheckFocus(in.Name, in.AllNamespaces); err != nil {
		return chain.Request{}, err
	}
	c, err := allowed.Connect(in.Context, in.Namespace)
	if err != nil {
		return chain.Request{}, err
	}
	return chain.Request{Namespace: chain.NamespaceOf(c, in.AllNamespaces), Name: in.Name, Clients: c}, nil
}

// FluxChainLint are the arguments of flux_chain_lint, as `flux-chain --repo` takes them.
type FluxChainLint struct {
	Repo       string   `json:"repo" jsonschema:"A directory in the repository's git working tree (absolute, or relative to the server's first repository root)."`
	Path       string   `json:"path,omitempty" jsonschema:"The entry path to build first, relative to the source root (default: detected)."`
	SourceRoot string   `json:"sourceRoot,omitempty" jsonschema:"The directory spec.paths are relative to, when Flux's source is an artifact pushed from a subdirectory (default: detected)."`
	FailOn     string   `json:"failOn,omitempty" jsonschema:"The least severity that makes the verdict FINDINGS: error (default), warning or info."`
	CRDs       []string `json:"crds,omitempty" jsonschema:"CRDs installed outside Flux, as an API group (monitoring.coreos.com) or GROUP/Kind."`
	Severity   []string `json:"severity,omitempty" jsonschema:"Rule severities, RULE=error|warning|info; they win over the repository's configuration file."`
}

// ToRequest is the RepoRequest of the call: the repository, which roots must hold, opened
// with its configuration file, the call's CRDs and severities and failOn by
// chain.OpenRepoRequest, as `flux-chain --repo` opens its flags. It has no --base, --live or
// chart source, and never the network: remote bases leave their tier not built (UNKNOWN). A bad
// value or a repository without a Flux Kustomization is bad input (exit 3).
func (in FluxChainLint) ToRequest(roots allowlist.Roots) (chain.RepoRequest, error) {
	dir, err := roots.Check(in.Repo)
	if err != nil {
		return chain.RepoRequest{}, err
	}
	return chain.OpenRepoRequest(chain.RepoArgs{Dir: dir, SourceRoot: in.SourceRoot, Path: in.Path, FailOn: in.FailOn,
		Declared: lint.Declared{CRDs: in.CRDs, Severity: in.Severity}})
}
