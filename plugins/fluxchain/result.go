package fluxchain

import "github.com/kubeforensics/suite/internal/chain"

// The plugin's Results are the chain package's: the command prints them, the MCP server and
// fleet mode return them, and docs/schema publishes their schemas.
type (
	// Result is the live chain (chain.Result).
	Result = chain.Result
	// RepoResult is the lint of a repository (chain.RepoResult).
	RepoResult = chain.RepoResult
)

// APIVersion is the apiVersion of the plugin's live reports and RepoAPIVersion of its --repo
// reports, published with their schemas in docs/schema (docs/report.md).
const (
	APIVersion     = chain.APIVersion
	RepoAPIVersion = chain.RepoAPIVersion
)
