package flux

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
)

// dotColor is the fill colour of each state in the Graphviz output.
var dotColor = map[State]string{
	Ready:       "palegreen",
	Failing:     "salmon",
	Waiting:     "khaki",
	Progressing: "lightblue",
	Suspended:   "lightgrey",
	NoStatus:    "white",
	Declared:    "white",
	Terminating: "orchid",
}

// WriteDot writes the chain as a Graphviz digraph: one node per Kustomization labelled with its
// notes, an edge from each dependency to its dependent, root causes and MarkError in bold red,
// MarkWarning in orange, tiers as ranks, missing dependencies dashed. Every label is escaped.
func (c *Chain) WriteDot(w io.Writer, notes Notes) error {
	var b strings.Builder
	b.WriteString("digraph \"flux-chain\" {\n  rankdir=LR;\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	roots := c.rootSet()
	for _, n := range c.Kustomizations {
		label := strings.Join(append([]string{n.ID, string(n.State)}, notes.Lines[n.ID]...), "\n")
		attrs := fmt.Sprintf("label=%s, fillcolor=%q", strconv.Quote(label), dotColor[n.State])
		switch notes.mark(roots, n.ID) {
		case MarkError:
			attrs += ", penwidth=3, color=red"
		case MarkWarning:
			attrs += ", penwidth=2, color=orange"
		}
		fmt.Fprintf(&b, "  %s [%s];\n", strconv.Quote(n.ID), attrs)
	}
	if lines := notes.Lines[EntryNote]; len(lines) > 0 {
		label := strings.Join(append([]string{"entry path"}, lines...), "\n")
		fmt.Fprintf(&b, "  \"(entry path)\" [shape=note, label=%s, fillcolor=white];\n", strconv.Quote(label))
	}
	for i, tier := range c.Tiers {
		if len(tier) == 0 {
			continue
		}
		quoted := make([]string, len(tier))
		for j, id := range tier {
			quoted[j] = strconv.Quote(id)
		}
		fmt.Fprintf(&b, "  subgraph tier%d { rank=same; %s; }\n", i, strings.Join(quoted, "; "))
	}
	for _, n := range c.Kustomizations {
		for _, dep := range n.DependsOn {
			style := ""
			if c.Node(dep) == nil {
				fmt.Fprintf(&b, "  %s [label=%s, style=dashed, fillcolor=white];\n", strconv.Quote(dep), strconv.Quote(dep+"\nmissing"))
				style = " [style=dashed, color=red]"
			}
			fmt.Fprintf(&b, "  %s -> %s%s;\n", strconv.Quote(dep), strconv.Quote(n.ID), style)
		}
		for _, d := range n.Inherited {
			if c.Node(d.ID) != nil && !slices.Contains(n.DependsOn, d.ID) {
				fmt.Fprintf(&b, "  %s -> %s [style=dotted, label=%s];\n", strconv.Quote(d.ID), strconv.Quote(n.ID), strconv.Quote("via "+d.Via))
			}
		}
	}
	b.WriteString("}\n")
	return output.WriteClean(w, b.String(), output.Palette{})
}
