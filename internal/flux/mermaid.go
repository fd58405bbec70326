package flux

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
)

// mermaidClasses are the fill of each state's class, and of a missing dependency.
const mermaidClasses = `  classDef ready fill:#cfc
  classDef failing fill:#f99
  classDef waiting fill:#ff9
  classDef progressing fill:#9cf
  classDef suspended fill:#ddd
  classDef nostatus fill:#fff
  classDef missing fill:#fff,stroke-dasharray:5 5
`

// WriteMermaid writes the chain as a Mermaid flowchart (renders in GitHub markdown), labelled and
// outlined as WriteDot does. Node ids are positional (k0, k1, …) because Mermaid ids cannot hold
// `/`; labels carry the names.
func (c *Chain) WriteMermaid(w io.Writer, notes Notes) error {
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
	for _, n := range c.Kustomizations {
		label := append([]string{mermaidText(n.ID), string(n.State)}, mermaidLines(notes.Lines[n.ID])...)
		fmt.Fprintf(&b, "  %s[\"%s\"]:::%s\n", idFor(n.ID), strings.Join(label, "<br/>"), strings.ToLower(string(n.State)))
	}
	if lines := notes.Lines[EntryNote]; len(lines) > 0 {
		fmt.Fprintf(&b, "  entry[\"%s\"]:::nostatus\n", strings.Join(append([]string{"entry path"}, mermaidLines(lines)...), "<br/>"))
	}
	for _, n := range c.Kustomizations {
		for _, dep := range n.DependsOn {
			if c.Node(dep) == nil {
				fmt.Fprintf(&b, "  %s[\"%s<br/>missing\"]:::missing\n", idFor(dep), mermaidText(dep))
			}
			fmt.Fprintf(&b, "  %s --> %s\n", idFor(dep), idFor(n.ID))
		}
		for _, d := range n.Inherited {
			if c.Node(d.ID) != nil && !slices.Contains(n.DependsOn, d.ID) {
				fmt.Fprintf(&b, "  %s -.->|\"via %s\"| %s\n", idFor(d.ID), mermaidText(d.Via), idFor(n.ID))
			}
		}
	}
	roots := c.rootSet()
	for _, n := range c.Kustomizations {
		switch notes.mark(roots, n.ID) {
		case MarkError:
			fmt.Fprintf(&b, "  style %s stroke:#c00,stroke-width:4px\n", idFor(n.ID))
		case MarkWarning:
			fmt.Fprintf(&b, "  style %s stroke:#e80,stroke-width:3px\n", idFor(n.ID))
		}
	}
	b.WriteString(mermaidClasses)
	if slices.ContainsFunc(c.Kustomizations, func(n *Node) bool { return n.State == Terminating }) {
		b.WriteString("  classDef terminating fill:#d9d\n")
	}
	return output.WriteClean(w, b.String(), output.Palette{})
}

func mermaidLines(lines []string) []string {
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
