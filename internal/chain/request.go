package chain

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
)

// DefaultNamespace is where a live reading looks unless told otherwise: flux-system, where
// Flux's own Kustomizations live.
const DefaultNamespace = "flux-system"

// CheckFocus refuses a Kustomization name with all namespaces: a name needs its namespace. It
// is the one check of the live chain's scope, which the command line, fleet mode and the MCP
// tool make alike (exit 3).
func CheckFocus(name string, allNamespaces bool) error {
	if name != "" && allNamespaces {
		return exitcode.UsageErrorf("a Kustomization NAME needs its namespace (-n), not -A")
	}
	return nil
}

// NamespaceOf is the namespace a live reading with c covers: "" (every namespace) with
// allNamespaces, else the one c was given explicitly (-n), else DefaultNamespace.
func NamespaceOf(c *cluster.Clients, allNamespaces bool) string {
	switch {
	case allNamespaces:
		return ""
	case c.NamespaceExplicit:
		return c.Namespace
	}
	return DefaultNamespace
}
