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

// Keys come out sorted at every level, struct fields included, in json and yaml alike.
func TestPrintSortsKeys(t *testing.T) {
	type inner struct {
		Zeta  int `json:"zeta"`
		Alpha int `json:"alpha"`
	}
	type outer struct {
		Verdict string  `json:"verdict"`
		Items   []inner `json:"items"`
		API     string  `json:"apiVersion"`
		Big     int64   `json:"big"`
	}
	v := outer{Verdict: "CLEAN", Items: []inner{{Zeta: 1, Alpha: 2}}, API: "x/v1", Big: 1 << 60}
	for _, tc := range []struct{ format, want string }{
		{"json", "{\n  \"apiVersion\": \"x/v1\",\n  \"big\": 1152921504606846976,\n  \"items\": [\n    {\n      \"alpha\": 2,\n      \"zeta\": 1\n    }\n  ],\n  \"verdict\": \"CLEAN\"\n}\n"},
		{"yaml", "apiVersion: x/v1\nbig: 1152921504606846976\nitems:\n- alpha: 2\n  zeta: 1\nverdict: CLEAN\n"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var b strings.Builder
			if err := (&PrintFlags{Format: tc.format, Color: "never"}).Print(&b, v, nil, Graphs{}); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
