package fluxchain

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
)

// PrintMermaid writes the chain as a Mermaid flowchart (renders in GitHub markdown): node ids
// are positional (k0, k1, …) because Mermaid ids cannot hold `/`, labels carry the names.
func PrintMermaid(w io.Writer, res *Result) error {
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
	for _, rc := range res.RootCauses {
		roots[rc.Kustomization] = true
	}
	for _, n := range res.Kustomizations {
		fmt.Fprintf(&b, "  %s[\"%s<br/>%s\"]:::%s\n", idFor(n.ID), mermaidText(n.ID), n.State, strings.ToLower(string(n.State)))
	}
	for _, n := range res.Kustomizations {
		for _, dep := range n.DependsOn {
			if res.Node(dep) == nil {
				fmt.Fprintf(&b, "  %s[\"%s<br/>missing\"]:::missing\n", idFor(dep), mermaidText(dep))
			}
			fmt.Fprintf(&b, "  %s --> %s\n", idFor(dep), idFor(n.ID))
		}
	}
	for _, n := range res.Kustomizations {
		if roots[n.ID] {
			fmt.Fprintf(&b, "  style %s stroke:#c00,stroke-width:4px\n", idFor(n.ID))
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

// mermaidText escapes control characters (output.Sanitize: a newline would end the node's line)
// and the characters Mermaid treats specially inside a quoted label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(output.Sanitize(s))
}
