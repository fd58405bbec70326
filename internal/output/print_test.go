package output

import (
	"io"
	"strings"
	"testing"
)

func TestPrintFlagsPrint(t *testing.T) {
	v := map[string]string{"verdict": "CLEAN"}
	text := func(w io.Writer, p Palette) error { _, err := io.WriteString(w, "text\n"); return err }
	graphs := Graphs{Dot: func(w io.Writer) error { _, err := io.WriteString(w, "digraph\n"); return err }}
	cases := []struct {
		format, want string
		fails        bool
	}{
		{"text", "text\n", false},
		{"json", "{\n  \"verdict\": \"CLEAN\"\n}\n", false},
		{"yaml", "verdict: CLEAN\n", false},
		{"dot", "digraph\n", false},
		{"mermaid", "", true},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			var b strings.Builder
			err := (&PrintFlags{Format: c.format, Color: "never"}).Print(&b, v, text, graphs)
			if (err != nil) != c.fails || b.String() != c.want {
				t.Errorf("got %q, %v; want %q, failure %v", b.String(), err, c.want, c.fails)
			}
		})
	}
}
