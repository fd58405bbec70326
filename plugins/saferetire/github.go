package saferetire

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/helm"
)

// github adds what a GitHub Actions run shows (only when GITHUB_ACTIONS=true): an ::error
// annotation on the manifest of each unsafe removal and a markdown summary appended to the
// file $GITHUB_STEP_SUMMARY names. Annotations go where the result does not: stdout for
// text, stderr for json and sarif, so those stay parseable.
func (o *SafeRetireOptions) github(res *Result) error {
	if !ghactions.Enabled(o.getenv) {
		return nil
	}
	w := o.Out
	if output.Format(o.PrintFlags.Format) != output.Text {
		w = o.ErrOut
	}
	full := ghactions.FullReport(o.PrintFlags.Format)
	ghactions.WriteAnnotations(w, annotations(res), full)
	var b strings.Builder
	if err := writeSummary(&b, res); err != nil {
		return err
	}
	return ghactions.AppendSummary(o.getenv, b.String(), full)
}

// annotations are an error on the manifest of each unsafe removal and a warning per gap.
func annotations(res *Result) []ghactions.Annotation {
	var out []ghactions.Annotation
	for _, rm := range res.Removals {
		if !rm.Unsafe {
			continue
		}
		msg := strings.Join(rm.Reasons, "\n") + "\nRetire it in stages: protect (" + retire.PruneAnnotation + ": " + retire.Disabled + "), drain, then remove the manifest."
		if rm.Outcome == retire.Upgraded {
			msg = strings.Join(rm.Reasons, "\n") + "\nRetire it in stages: keep the claim first (retain: true, or " + helm.ResourcePolicyAnnotation + ": keep), then drop it from the values."
		}
		out = append(out, ghactions.Annotation{Level: ghactions.Error, File: rm.File,
			Title: "safe-retire: unsafe removal of " + rm.Object.String(), Message: msg})
	}
	for _, u := range res.Unbuilt {
		out = append(out, ghactions.Annotation{Level: ghactions.Warning, Title: "safe-retire: UNKNOWN tier " + u.Kustomization, Message: unbuiltLine(u)})
	}
	for _, s := range res.Incomplete {
		out = append(out, ghactions.Annotation{Level: ghactions.Warning, Title: "safe-retire: UNKNOWN (" + string(s.Reason) + ")", Message: s.String()})
	}
	return out
}

// unbuiltLine says which tier did not build where, and what it needs.
func unbuiltLine(u retire.Unbuilt) string {
	line := fmt.Sprintf("%s did not build at the %s, so its removals are not judged: %s", gitops.TierName(u.Kustomization, u.Path), u.Side, u.Error)
	if len(u.RemoteURLs) > 0 {
		line += "; vendor " + strings.Join(u.RemoteURLs, ", ") + " into the repository or run with --allow-network"
	}
	return line
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
				fmt.Fprintf(&b, "%s   expect: %s\n", ghactions.CodeBlock("   ", s.Check), md(s.Expect))
			}
		}
		b.WriteString("\n")
	}
	for _, u := range res.Unbuilt {
		fmt.Fprintf(&b, "- ⚠️ %s\n", md(unbuiltLine(u)))
	}
	for _, s := range res.NotCovered {
		fmt.Fprintf(&b, "- not covered (another source): %s\n", md(s.String()))
	}
	for _, s := range res.Incomplete {
		fmt.Fprintf(&b, "- ⚠️ %s %s\n", ghactions.Code(string(s.Reason)), md(s.String()))
	}
	if c := res.Confirm; c != nil && c.Command != "" {
		fmt.Fprintf(&b, "\nPlan digest %s (%d step(s)); carry out exactly this plan, refused if anything in it changed:\n%s", md(c.Digest), len(c.Plan.Steps), ghactions.CodeBlock("", c.Command))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// md keeps a table cell on one line and its pipes literal.
func md(s string) string { return ghactions.Cell(s) }
