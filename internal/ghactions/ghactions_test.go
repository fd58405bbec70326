package ghactions

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
			WriteAnnotations(&b, []Annotation{tt.in}, "")
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
		if err := AppendSummary(func(k string) string { return env[k] }, "x\n", ""); err != nil {
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

// TestAnnotationsCapped is issue 25 item 4: GitHub shows 10 annotations of each level per step
// and drops the rest silently, so a run with thousands of findings wrote megabytes of
// annotations nobody saw. At most 10 per level are written, the tenth saying how many more
// there are and where the full report is; a long message is cut the same way.
func TestAnnotationsCapped(t *testing.T) {
	var as []Annotation
	for i := range 1000 {
		as = append(as, Annotation{Level: Error, File: "f.yaml", Message: fmt.Sprintf("e%d", i)})
		as = append(as, Annotation{Level: Warning, Message: fmt.Sprintf("w%d", i)})
	}
	as = append(as, Annotation{Level: Notice, Message: strings.Repeat("x", 1<<20)})
	var b bytes.Buffer
	WriteAnnotations(&b, as, "FULL")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for _, level := range []string{"::error", "::warning"} {
		var got []string
		for _, l := range lines {
			if strings.HasPrefix(l, level+" ") || strings.HasPrefix(l, level+"::") {
				got = append(got, l)
			}
		}
		if len(got) != AnnotationsPerLevel {
			t.Errorf("%s: %d annotations, want %d", level, len(got), AnnotationsPerLevel)
			continue
		}
		if last := got[len(got)-1]; !strings.Contains(last, "991 more") || !strings.HasSuffix(last, "FULL") {
			t.Errorf("%s: the last annotation does not say what was left out: %q", level, last)
		}
	}
	if b.Len() > 16<<10 {
		t.Errorf("annotations for 2,001 findings and a 1 MiB message take %d bytes", b.Len())
	}
	if !strings.Contains(b.String(), "bytes more; FULL)") {
		t.Error("the cut message does not say so")
	}
}

// TestSummaryCapped is issue 25 item 4: a 38 MB step summary is dropped whole by GitHub
// (it keeps 1 MiB per step). The summary is cut at a line within the budget left in the
// file, the open code fence and <details> closed, with a line saying what was left out.
func TestSummaryCapped(t *testing.T) {
	var md strings.Builder
	md.WriteString("<details><summary>x</summary>\n\n")
	for i := 0; md.Len() < 38<<20; i++ {
		fmt.Fprintf(&md, "%d.\n%s", i, CodeBlock("   ", strings.Repeat("kubectl get pvc x ", 20)))
	}
	p := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(p, []byte("an earlier step's part\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_STEP_SUMMARY": p}
	if err := AppendSummary(func(k string) string { return env[k] }, md.String(), "FULL"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > MaxSummary {
		t.Fatalf("the summary file holds %d bytes, more than GitHub keeps (%d)", len(got), MaxSummary)
	}
	if len(got) < MaxSummary-4096 {
		t.Errorf("the summary file holds only %d bytes of a %d byte budget", len(got), MaxSummary)
	}
	s := string(got)
	if !strings.Contains(s, "**Cut short:**") || !strings.HasSuffix(s, "FULL\n") {
		t.Errorf("no line says the summary was cut: ...%q", s[len(s)-300:])
	}
	if fences := strings.Count(s, "   ```\n"); fences%2 != 0 {
		t.Errorf("%d fence lines: a code block is left open", fences)
	}
	if strings.Count(s, "<details>") != strings.Count(s, "</details>") {
		t.Error("<details> is left open")
	}
	if short := FitSummary("a\n", 10, "FULL"); short != "a\n" {
		t.Errorf("a summary within the budget was changed: %q", short)
	}
}
