// Package ghactions writes what a GitHub Actions run shows besides the log: workflow-command
// annotations (::error, ::warning, ::notice) that GitHub pins to a file and line of the pull
// request, and markdown appended to the job's step summary. It knows nothing of any plugin's
// result; plugins turn their findings into Annotations and their own markdown.
package ghactions

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/kubeforensics/suite/internal/output"
)

// Level is an annotation's workflow command: error, warning or notice.
type Level string

// The annotation levels GitHub knows.
const (
	Error   Level = "error"
	Warning Level = "warning"
	Notice  Level = "notice"
)

// Annotation is one workflow-command annotation. File is repo-relative; Line is 1-based and
// left out when 0.
type Annotation struct {
	Level   Level
	File    string
	Line    int
	Title   string
	Message string
}

// Enabled reports whether the process runs under GitHub Actions (GITHUB_ACTIONS=true).
func Enabled(getenv func(string) string) bool {
	return getenv != nil && getenv("GITHUB_ACTIONS") == "true"
}

// What GitHub keeps of a step (actions/toolkit docs/problem-matchers.md, "Limitations"; the
// runner's "$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of 1024k"):
// 10 annotations of each level per step, a step summary of at most 1 MiB, or none of it.
const (
	// AnnotationsPerLevel is how many annotations of one level GitHub shows for a step.
	AnnotationsPerLevel = 10
	// MaxSummary is the most a step summary may hold; above it GitHub drops all of it.
	MaxSummary = 1 << 20
	// MaxMessage bounds one annotation's message (before escaping).
	MaxMessage = 4 << 10
)

// WriteAnnotations writes the annotations as workflow commands, one per line, at most
// AnnotationsPerLevel of each level: past that, the last one of the level says how many were
// left out and where the full report is (full, such as "run with -o json > report.json"),
// since GitHub would drop them silently. A message above MaxMessage is cut the same way.
func WriteAnnotations(w io.Writer, as []Annotation, full string) {
	total := map[Level]int{}
	for _, a := range as {
		total[level(a)]++
	}
	written := map[Level]int{}
	for _, a := range as {
		l := level(a)
		switch n := written[l]; {
		case n == AnnotationsPerLevel-1 && total[l] > AnnotationsPerLevel:
			a = Annotation{Level: l, Title: "not shown",
				Message: fmt.Sprintf("%d more %s annotation(s) not shown (GitHub shows %d per step); %s", total[l]-n, l, AnnotationsPerLevel, full)}
		case n >= AnnotationsPerLevel-1 && total[l] > AnnotationsPerLevel:
			continue
		}
		written[l]++
		if kept := cut(a.Message, MaxMessage); len(kept) < len(a.Message) {
			a.Message = kept + fmt.Sprintf(" … (%d bytes more; %s)", len(a.Message)-len(kept), full)
		}
		writeAnnotation(w, a)
	}
}

func level(a Annotation) Level {
	if a.Level == "" {
		return Notice
	}
	return a.Level
}

func writeAnnotation(w io.Writer, a Annotation) {
	var props []string
	if a.File != "" {
		props = append(props, "file="+EscapeProperty(a.File))
		if a.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", a.Line))
		}
	}
	if a.Title != "" {
		props = append(props, "title="+EscapeProperty(a.Title))
	}
	head := "::" + string(level(a))
	if len(props) > 0 {
		head += " " + strings.Join(props, ",")
	}
	fmt.Fprintf(w, "%s::%s\n", head, EscapeData(a.Message))
}

// cut is s's longest prefix of at most n bytes that ends on a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// AppendSummary appends markdown to the file $GITHUB_STEP_SUMMARY names; without one it does
// nothing. What would take the file past MaxSummary (GitHub then shows none of it) is left
// out at a line boundary, open code fences and <details> closed, and a last line says how
// much was left out and where the full report is (full).
func AppendSummary(getenv func(string) string, markdown, full string) error {
	path := getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	var have int64
	if fi, err := f.Stat(); err == nil {
		have = fi.Size()
	}
	if _, err := io.WriteString(f, FitSummary(markdown, MaxSummary-int(have), full)); err != nil {
		f.Close()
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return f.Close()
}

// FitSummary is markdown when it fits in budget bytes; otherwise its longest run of whole
// lines that leaves room for closing what is open (code fences, <details>) and a line saying
// how many bytes and lines were left out and where the full report is. The result never
// exceeds budget (nothing when budget cannot hold even that line).
func FitSummary(markdown string, budget int, full string) string {
	return FitMarkdown(markdown, budget, "summary", fmt.Sprintf("GitHub keeps at most %d KiB per step", MaxSummary>>10), full)
}

// FitMarkdown is FitSummary for any markdown GitHub bounds (a step summary, a pull request
// comment): what names the document in the notice ("summary", "comment") and limit says what
// GitHub keeps.
func FitMarkdown(markdown string, budget int, what, limit, full string) string {
	if len(markdown) <= budget {
		return markdown
	}
	notice := func(bytes, lines int) string {
		return fmt.Sprintf("\n**Cut short:** %d bytes (%d lines) of this %s are left out: %s. %s\n",
			bytes, lines, what, limit, full)
	}
	reserve := len(notice(len(markdown), strings.Count(markdown, "\n")+1)) + 512 // closers are short
	if budget < reserve {
		return ""
	}
	keep := strings.LastIndexByte(markdown[:budget-reserve], '\n') + 1
	kept := markdown[:keep]
	out := kept + closers(kept) + notice(len(markdown)-keep, strings.Count(markdown[keep:], "\n")+1)
	if len(out) > budget { // more left open than the reserve closes: only the notice
		return notice(len(markdown), strings.Count(markdown, "\n")+1)
	}
	return out
}

// FullReport is the line that says where a run's full report is: its own output when that
// is JSON or YAML already, else the same command again with -o json written to a file.
func FullReport(format string) string {
	if format == "json" || format == "yaml" {
		return "The full report is this step's -o " + format + " output."
	}
	return "For the full report, run the same command with " + Code("-o json > report.json") + "."
}

// closers closes what the kept markdown left open: a fenced code block (a line of only
// backticks, as CodeBlock writes, opens one and a line of at least as many closes it) and
// <details> elements.
func closers(md string) string {
	var out strings.Builder
	fence, indent := 0, ""
	details := 0
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " ")
		if n := len(t); n >= 3 && strings.Trim(t, "`") == "" {
			switch {
			case fence == 0:
				fence, indent = n, line[:len(line)-n]
			case n >= fence:
				fence = 0
			}
			continue
		}
		if fence == 0 {
			details += strings.Count(line, "<details>") - strings.Count(line, "</details>")
		}
	}
	if fence > 0 {
		out.WriteString(indent + strings.Repeat("`", fence) + "\n")
	}
	for range max(details, 0) {
		out.WriteString("\n</details>\n")
	}
	return out.String()
}

// EscapeData escapes an annotation's message as the workflow-command syntax requires (%, CR
// and LF, the runner's escapeData), then any other control character as output.Sanitize does,
// so the log line holds no ANSI escape or bidi override either.
func EscapeData(s string) string {
	return output.Sanitize(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

// EscapeProperty escapes a property value (file, title), where ':' and ',' are separators too
// (the runner's escapeProperty).
func EscapeProperty(s string) string {
	return output.Sanitize(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s))
}

// markdown backslash-escapes the ASCII punctuation that would make text in a summary a table
// separator, a code span, a link or image, an HTML tag or comment, or an entity. Emphasis marks
// stay as they are: at worst they change a font, and names and URLs keep their underscores.
var markdown = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "&", `\&`)

// Cell makes text others wrote inert in the step summary: on one line (a newline becomes a
// space), control characters escaped (output.Sanitize), and markdown punctuation literal. Use it
// for every table cell and list item.
func Cell(s string) string {
	return markdown.Replace(output.Sanitize(strings.ReplaceAll(s, "\n", " ")))
}

// CodeBlock is a fenced code block holding one line, such as a command, indented by indent: the
// line is escaped (output.Sanitize), so no newline ends the block early, and the fence is longer
// than any run of backticks in it, so none closes it either.
func CodeBlock(indent, line string) string {
	line = output.Sanitize(line)
	fence := strings.Repeat("`", max(3, longestRun(line, '`')+1))
	return indent + fence + "\n" + indent + line + "\n" + indent + fence + "\n"
}

// Code is an inline code span of one line, escaped and fenced as CodeBlock's.
func Code(s string) string {
	s = output.Sanitize(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}
