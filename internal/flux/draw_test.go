package flux

import (
	"strings"
	"testing"
)

func TestWriteGraphs(t *testing.T) {
	c := &Chain{
		Tiers: [][]string{{"fs/infra"}, {"fs/apps"}},
		Kustomizations: []*Node{
			{ID: "fs/apps", State: Waiting, DependsOn: []string{"fs/infra", "fs/gone"}},
			{ID: "fs/infra", State: Failing},
		},
		RootCauses: []RootCause{{Kustomization: "fs/infra"}},
	}
	notes := Notes{Lines: map[string][]string{"fs/apps": {"WARNING crd-order"}, EntryNote: {"INFO remote-base"}},
		Marks: map[string]Mark{"fs/apps": MarkWarning}}
	cases := []struct {
		name  string
		write func(*strings.Builder) error
		want  []string
	}{
		{"dot", func(b *strings.Builder) error { return c.WriteDot(b, notes) }, []string{
			`"fs/apps" [label="fs/apps\nWaiting\nWARNING crd-order", fillcolor="khaki", penwidth=2, color=orange];`,
			`"fs/infra" [label="fs/infra\nFailing", fillcolor="salmon", penwidth=3, color=red];`,
			`"(entry path)" [shape=note, label="entry path\nINFO remote-base", fillcolor=white];`,
			`"fs/gone" -> "fs/apps" [style=dashed, color=red];`,
			`subgraph tier1 { rank=same; "fs/apps"; }`,
		}},
		{"mermaid", func(b *strings.Builder) error { return c.WriteMermaid(b, notes) }, []string{
			`k0["fs/apps<br/>Waiting<br/>WARNING crd-order"]:::waiting`,
			`entry["entry path<br/>INFO remote-base"]:::nostatus`,
			`k2["fs/gone<br/>missing"]:::missing`,
			`style k0 stroke:#e80,stroke-width:3px`,
			`style k1 stroke:#c00,stroke-width:4px`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %s in\n%s", w, b.String())
				}
			}
		})
	}
}
