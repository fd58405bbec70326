package fluxchain

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/flux"
)

// Result is everything flux-chain found, in the one shape every output format prints: the
// analysed chain plus the cluster it is about and the reads that failed.
type Result struct {
	Target cluster.Target `json:"target"`
	// Namespace is the namespace whose Kustomizations were listed; "" means all namespaces.
	Namespace string `json:"namespace"`
	// Focus is the Kustomization (namespace/name) the view was narrowed to, if any.
	Focus string `json:"focus,omitempty"`
	flux.Chain
	// Warnings name reads that failed; when a LIST failed the result is incomplete (exit 2).
	Warnings   []string `json:"warnings"`
	Incomplete bool     `json:"incomplete"`
}
