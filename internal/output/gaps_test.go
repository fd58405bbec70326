package output

import (
	"strings"
	"testing"
)

func TestGapsOf(t *testing.T) {
	cases := []struct {
		name, line, what, reason string
	}{
		{"what and reason", "listing secrets: secrets is forbidden: User x", "listing secrets", "secrets is forbidden: User x"},
		{"what only", "Kustomization a/b is not Ready", "Kustomization a/b is not Ready", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := GapsOf([]string{c.line})
			if len(g) != 1 || g[0].What != c.what || g[0].Reason != c.reason {
				t.Fatalf("GapsOf(%q) = %+v", c.line, g)
			}
			if g[0].String() != c.line {
				t.Errorf("String() = %q, want the line back", g[0].String())
			}
		})
	}
	if GapsOf(nil) != nil {
		t.Errorf("GapsOf(nil) is not nil")
	}
}

func TestAddIncomplete(t *testing.T) {
	root := &Node{}
	if AddIncomplete(root, nil, Palette{}) != nil || len(root.Children) != 0 {
		t.Fatal("no gaps must add no section")
	}
	AddIncomplete(root, []Gap{{What: "listing secrets", Reason: "forbidden\x1b[2J"}}, Palette{})
	var b strings.Builder
	if err := root.Render(&b, Palette{}); err != nil {
		t.Fatal(err)
	}
	want := "INCOMPLETE: these reads or builds failed, so what they would show is unknown (not absent):\n└── listing secrets: forbidden\\x1b[2J\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
