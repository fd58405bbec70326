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

// EscapeData escapes an annotation's message as the workflow-command syntax requires.
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a property value (file, title), where ':' and ',' are separators.
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Cell keeps a markdown table cell on one line and its pipes literal.
func Cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
