package fluxchain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/output"
)

// dotColor is the fill colour of each state in the Graphviz output.
var dotColor = map[flux.State]string{
	flux.Ready:       "palegreen",
	flux.Failing:     "salmon",
	flux.Waiting:     "khaki",
	flux.Progressing: "lightblue",
	flux.Suspended:   "lightgrey",
	flux.NoStatus:    "white",
	flux.Declared:    "white",
}

// PrintDot writes the chain as a Graphviz digraph: one node per Kustomization, an edge from
// each dependency to its dependent, root causes outlined in bold, tiers as ranks.
func PrintDot(w io.Writer, res *Result) error {
	var b strings.Builder
	b.WriteString("digraph \"flux-chain\" {\n  rankdir=LR;\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	roots := map[string]bool{}
	for _, rc := range res.RootCauses {
		roots[rc.Kustomization] = true
	}
	for _, n := range res.Kustomizations {
		attrs := fmt.Sprintf("label=%s, fillcolor=%q", strconv.Quote(n.ID+"\n"+string(n.State)), dotColor[n.State])
		if roots[n.ID] {
			attrs += ", penwidth=3, color=red"
		}
		fmt.Fprintf(&b, "  %s [%s];\n", strconv.Quote(n.ID), attrs)
	}
	for i, tier := range res.Tiers {
		if len(tier) == 0 {
			continue
		}
		quoted := make([]string, len(tier))
		for j, id := range tier {
			quoted[j] = strconv.Quote(id)
		}
		fmt.Fprintf(&b, "  subgraph tier%d { rank=same; %s; }\n", i, strings.Join(quoted, "; "))
	}
	for _, n := range res.Kustomizations {
		for _, dep := range n.DependsOn {
			style := ""
			if res.Node(dep) == nil {
				fmt.Fprintf(&b, "  %s [label=%s, style=dashed, fillcolor=white];\n", strconv.Quote(dep), strconv.Quote(dep+"\nmissing"))
				style = " [style=dashed, color=red]"
			}
			fmt.Fprintf(&b, "  %s -> %s%s;\n", strconv.Quote(dep), strconv.Quote(n.ID), style)
		}
	}
	b.WriteString("}\n")
	return output.WriteClean(w, b.String(), output.Palette{})
}
