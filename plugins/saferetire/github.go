package saferetire

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
)

// github adds what a GitHub Actions run shows (only when GITHUB_ACTIONS=true): an ::error
// annotation on the manifest of each unsafe removal and a markdown summary appended to the
// file $GITHUB_STEP_SUMMARY names. Annotations go where the result does not: stdout for
// text, stderr for json, so the json stays parseable.
func (o *SafeRetireOptions) github(res *Result) error {
	if o.getenv == nil || o.getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	w := o.Out
	if output.Format(o.PrintFlags.Format) == output.JSON {
		w = o.ErrOut
	}
	writeAnnotations(w, res)
	path := o.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	defer f.Close()
	if err := writeSummary(f, res); err != nil {
		return fmt.Errorf("appending to $GITHUB_STEP_SUMMARY %s: %w", path, err)
	}
	return f.Close()
}

func writeAnnotations(w io.Writer, res *Result) {
	for _, rm := range res.Removals {
		if !rm.Unsafe {
			continue
		}
		props := "title=" + escapeProperty("safe-retire: unsafe removal of "+rm.Object.String())
		if rm.File != "" {
			props = "file=" + escapeProperty(rm.File) + "," + props
		}
		msg := strings.Join(rm.Reasons, "\n") + "\nRetire it in stages: protect (" + retire.PruneAnnotation + ": " + retire.Disabled + "), drain, then remove the manifest."
		fmt.Fprintf(w, "::error %s::%s\n", props, escapeData(msg))
	}
	for _, s := range res.Incomplete {
		fmt.Fprintf(w, "::warning title=safe-retire: UNKNOWN::%s\n", escapeData(s))
	}
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func writeSummary(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## safe-retire: %s\n\n", res.Verdict)
	fmt.Fprintf(&b, "Base %s (%s), candidate %s, %s mode.\n\n", md(res.Base.String()), res.BaseHow, md(res.Candidate.String()), res.Mode)
	if len(res.Removals) > 0 {
		b.WriteString("| | Object | Kustomization | Outcome | File |\n|---|---|---|---|---|\n")
		for _, rm := range res.Removals {
			mark := "✅"
			if rm.Unsafe {
				mark = "❌"
			}
			outcome := string(rm.Outcome)
			if rm.OptOut != "" && rm.Outcome == retire.Retained {
				outcome += " (" + rm.OptOut + "; delete by hand later)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mark, md(rm.Object.String()), md(rm.Kustomization), md(outcome), md(rm.File))
		}
		b.WriteString("\n")
	}
	for _, rm := range res.Removals {
		if len(rm.Plan) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### Plan for %s\n\n", md(rm.Object.String()))
		for _, why := range rm.Reasons {
			fmt.Fprintf(&b, "- %s\n", md(why))
		}
		for _, s := range rm.Plan {
			done := ""
			if s.Done {
				done = " (done by this change)"
			}
			fmt.Fprintf(&b, "\n%d. **%s**%s: %s\n", s.Number, s.Title, done, md(strings.Join(s.Do, "; ")))
			if s.Check != "" {
				fmt.Fprintf(&b, "   ```\n   %s\n   ```\n   expect: %s\n", s.Check, md(s.Expect))
			}
		}
		b.WriteString("\n")
	}
	for _, s := range res.Incomplete {
		fmt.Fprintf(&b, "- ⚠️ %s\n", md(s))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// md keeps a table cell on one line and its pipes literal.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
