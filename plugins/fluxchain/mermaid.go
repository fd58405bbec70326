package fluxchain

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// PrintMermaid writes the chain as a Mermaid flowchart (renders in GitHub markdown): node ids
// are positional (k0, k1, …) because Mermaid ids cannot hold `/`, labels carry the names.
func PrintMermaid(w io.Writer, res *Result) error {
	return writeMermaid(w, &res.Chain, lintNotes{})
}

// PrintRepoMermaid writes the repository's chain as PrintMermaid does, each Kustomization
// labelled with its lint findings and outlined by the most severe.
func PrintRepoMermaid(w io.Writer, res *RepoResult) error {
	return writeMermaid(w, &res.Chain, notesOf(res.Lint))
}

func writeMermaid(w io.Writer, c *flux.Chain, notes lintNotes) error {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	ids := map[string]string{}
	idFor := func(name string) string {
		if id, ok := ids[name]; ok {
			return id
		}
		ids[name] = fmt.Sprintf("k%d", len(ids))
		return ids[name]
	}
	roots := map[string]bool{}
	for _, rc := range c.RootCauses {
		roots[rc.Kustomization] = true
	}
	for _, n := range c.Kustomizations {
		label := append([]string{mermaidText(n.ID), string(n.State)}, mapText(notes.lines[n.ID])...)
		fmt.Fprintf(&b, "  %s[\"%s\"]:::%s\n", idFor(n.ID), strings.Join(label, "<br/>"), strings.ToLower(string(n.State)))
	}
	if lines := notes.lines[entryNote]; len(lines) > 0 {
		fmt.Fprintf(&b, "  entry[\"%s\"]:::nostatus\n", strings.Join(append([]string{"entry path"}, mapText(lines)...), "<br/>"))
	}
	for _, n := range c.Kustomizations {
		for _, dep := range n.DependsOn {
			if c.Node(dep) == nil {
				fmt.Fprintf(&b, "  %s[\"%s<br/>missing\"]:::missing\n", idFor(dep), mermaidText(dep))
			}
			fmt.Fprintf(&b, "  %s --> %s\n", idFor(dep), idFor(n.ID))
		}
	}
	for _, n := range c.Kustomizations {
		switch {
		case roots[n.ID], notes.worst[n.ID] == lint.Error:
			fmt.Fprintf(&b, "  style %s stroke:#c00,stroke-width:4px\n", idFor(n.ID))
		case notes.worst[n.ID] == lint.Warning:
			fmt.Fprintf(&b, "  style %s stroke:#e80,stroke-width:3px\n", idFor(n.ID))
		}
	}
	b.WriteString(`  classDef ready fill:#cfc
  classDef failing fill:#f99
  classDef waiting fill:#ff9
  classDef progressing fill:#9cf
  classDef suspended fill:#ddd
  classDef nostatus fill:#fff
  classDef missing fill:#fff,stroke-dasharray:5 5
`)
	return output.WriteClean(w, b.String(), output.Palette{})
}

func mapText(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = mermaidText(l)
	}
	return out
}

// mermaidText escapes control characters (output.Sanitize: a newline would end the node's line)
// and the characters Mermaid treats specially inside a quoted label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(output.Sanitize(s))
}
