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

// WriteAnnotations writes each annotation as a workflow command, one per line.
func WriteAnnotations(w io.Writer, as []Annotation) {
	for _, a := range as {
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
		level := a.Level
		if level == "" {
			level = Notice
		}
		head := "::" + string(level)
		if len(props) > 0 {
			head += " " + strings.Join(props, ",")
		}
		fmt.Fprintf(w, "%s::%s\n", head, EscapeData(a.Message))
	}
}

// AppendSummary appends markdown to the file $GITHUB_STEP_SUMMARY names; without one it does
// nothing.
func AppendSummary(getenv func(string) string, markdown string) error {
	path := getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	if _, err := io.WriteString(f, markdown); err != nil {
		f.Close()
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return f.Close()
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
