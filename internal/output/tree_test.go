package output

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	root := &Node{Text: "root"}
	a := root.Add("a")
	a.Add("a1")
	a.AddLines("a2", "continued")
	root.Add("b").Add("b1")
	var sb strings.Builder
	if err := root.Render(&sb, Palette{}); err != nil {
		t.Fatal(err)
	}
	want := `root
a
├── a1
└── a2
    continued
b
└── b1
`
	if sb.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", sb.String(), want)
	}
}

func TestValidate(t *testing.T) {
	f := NewPrintFlags(Text, JSON)
	for _, tc := range []struct {
		format, color string
		ok            bool
	}{{"text", "auto", true}, {"json", "never", true}, {"dot", "auto", false}, {"text", "sometimes", false}} {
		f.Format, f.Color = tc.format, tc.color
		if err := f.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%s,%s) = %v, want ok=%v", tc.format, tc.color, err, tc.ok)
		}
	}
}

func TestUseColorHonoursNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	f := NewPrintFlags(Text)
	if f.UseColor(&strings.Builder{}) {
		t.Fatal("colour on a non-terminal with NO_COLOR set")
	}
	f.Color = "always"
	if !f.UseColor(&strings.Builder{}) {
		t.Fatal("--color=always must win over NO_COLOR")
	}
}

// A message of several lines (errors.Join, a Flux condition) is drawn one line each, indented
// under its item, never as a literal `\n`; control characters inside a line stay escaped.
func TestAddMessage(t *testing.T) {
	root := &Node{}
	item := root.Add("item")
	item.AddMessage("warning: ", "chart not available: a\nchart not available: b\r\n\n")
	item.AddMessage("condition Ready: ", "health check failed\n  Deployment/x: \x1b[2Jnot ready\rnow")
	root.AddMessage("gap: ", "")
	var sb strings.Builder
	if err := root.Render(&sb, Palette{}); err != nil {
		t.Fatal(err)
	}
	want := `item
├── warning: chart not available: a
│     chart not available: b
└── condition Ready: health check failed
        Deployment/x: \x1b[2Jnot ready\rnow
gap: 
`
	if sb.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", sb.String(), want)
	}
}

func TestMessageLines(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want []string
	}{{"", nil}, {"one", []string{"one"}}, {"a\r\nb\n\n c \n", []string{"a", "b", " c "}}, {"\n\n", nil}} {
		if got := MessageLines(tc.msg); strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("MessageLines(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
