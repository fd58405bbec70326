package fluxchain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
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
	return writeDot(w, &res.Chain, lintNotes{})
}

// PrintRepoDot writes the repository's chain as PrintDot does, each Kustomization labelled
// with its lint findings (rule and count) and outlined by the most severe; findings that name
// no Kustomization go on a note of their own.
func PrintRepoDot(w io.Writer, res *RepoResult) error {
	return writeDot(w, &res.Chain, notesOf(res.Lint))
}

func writeDot(w io.Writer, c *flux.Chain, notes lintNotes) error {
	var b strings.Builder
	b.WriteString("digraph \"flux-chain\" {\n  rankdir=LR;\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	roots := map[string]bool{}
	for _, rc := range c.RootCauses {
		roots[rc.Kustomization] = true
	}
	for _, n := range c.Kustomizations {
		label := strings.Join(append([]string{n.ID, string(n.State)}, notes.lines[n.ID]...), "\n")
		attrs := fmt.Sprintf("label=%s, fillcolor=%q", strconv.Quote(label), dotColor[n.State])
		switch {
		case roots[n.ID], notes.worst[n.ID] == lint.Error:
			attrs += ", penwidth=3, color=red"
		case notes.worst[n.ID] == lint.Warning:
			attrs += ", penwidth=2, color=orange"
		}
		fmt.Fprintf(&b, "  %s [%s];\n", strconv.Quote(n.ID), attrs)
	}
	if lines := notes.lines[entryNote]; len(lines) > 0 {
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
	}
	b.WriteString("}\n")
	return output.WriteClean(w, b.String(), output.Palette{})
}
