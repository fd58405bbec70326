package ghactions

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAnnotations(t *testing.T) {
	tests := []struct {
		name string
		in   Annotation
		want string
	}{
		{"file and line", Annotation{Level: Error, File: "a/b.yaml", Line: 7, Title: "x: y", Message: "one\ntwo"}, "::error file=a/b.yaml,line=7,title=x%3A y::one%0Atwo\n"},
		{"no file", Annotation{Level: Warning, Title: "t", Message: "100%"}, "::warning title=t::100%25\n"},
		{"no props", Annotation{Message: "m"}, "::notice::m\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			WriteAnnotations(&b, []Annotation{tt.in})
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestAppendSummary(t *testing.T) {
	p := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_STEP_SUMMARY": p}
	for range 2 {
		if err := AppendSummary(func(k string) string { return env[k] }, "x\n"); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(p)
	if string(got) != "x\nx\n" {
		t.Errorf("summary %q", got)
	}
	if !Enabled(func(string) string { return "true" }) || Enabled(nil) {
		t.Error("Enabled")
	}
}

// TestSummaryEscaping is issue 16 item 6: a newline in a check command broke out of its code
// fence in the step summary, and a backtick run could close it.
func TestSummaryEscaping(t *testing.T) {
	if got := CodeBlock("   ", "kubectl get pvc 'a\n```\n::error::x'"); got != "   ````\n   kubectl get pvc 'a\\n```\\n::error::x'\n   ````\n" {
		t.Errorf("CodeBlock = %q", got)
	}
	if got := CodeBlock("", "a ```` b"); got != "`````\na ```` b\n`````\n" {
		t.Errorf("CodeBlock with a backtick run = %q", got)
	}
	if got := Cell("x | <!-- [a](http://e) `c`\n\x1b[2J"); got != "x \\| \\<!-- \\[a\\](http://e) \\`c\\` \\\\x1b\\[2J" {
		t.Errorf("Cell = %q", got)
	}
	if got := Code("a`b"); got != "``a`b``" {
		t.Errorf("Code = %q", got)
	}
	if got := EscapeData("m\x1b[31m\u202e"); got != `m\x1b[31m\u202e` {
		t.Errorf("EscapeData = %q", got)
	}
}
