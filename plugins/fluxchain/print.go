package fluxchain

import (
	"fmt"
	"io"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/output"
)

// PrintText draws the result for people: the chain (flux.Chain.AddText: root causes, tiers,
// findings), then the reads that failed.
func PrintText(w io.Writer, res *Result, p output.Palette) error {
	root := &output.Node{}
	if len(res.Kustomizations) == 0 {
		scope := "namespace " + res.Namespace
		if res.Namespace == "" {
			scope = "any namespace"
		}
		root.Add(fmt.Sprintf("No Kustomizations in %s.", scope))
	}
	res.AddText(root, p)
	output.AddIncomplete(root, res.Incomplete, p)
	if len(res.Warnings) > 0 {
		sec := root.Add(p.Warn("WARNINGS (the root causes' objects may be incompletely explained)"))
		for _, wr := range res.Warnings {
			sec.AddMessage("", wr)
		}
	}
	return root.Render(w, p)
}

// PrintDot writes the chain as a Graphviz digraph (flux.Chain.WriteDot).
func PrintDot(w io.Writer, res *Result) error {
	return res.WriteDot(w, flux.Notes{})
}

// PrintMermaid writes the chain as a Mermaid flowchart (flux.Chain.WriteMermaid).
func PrintMermaid(w io.Writer, res *Result) error {
	return res.WriteMermaid(w, flux.Notes{})
}
