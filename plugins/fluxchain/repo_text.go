package fluxchain

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// PrintRepoText draws the declared chain as live mode does, then the lint findings (most severe
// first, each with where to fix it, why and how), the tiers that did not build and the tiers
// another repository builds.
func PrintRepoText(w io.Writer, res *RepoResult, p output.Palette) error {
	if err := PrintText(w, &Result{Chain: res.Chain}, p); err != nil {
		return err
	}
	root := &output.Node{}
	if len(res.Lint) == 0 {
		root.Add(p.Good("LINT: no findings"))
	} else {
		sec := root.Add(p.Bold(fmt.Sprintf("LINT (%d, failing at %s)", len(res.Lint), res.FailOn)))
		for _, f := range res.Lint {
			n := f.AddText(sec, p)
			n.Add("why: " + f.Why)
			n.Add("fix: " + f.Fix)
		}
	}
	if len(res.Suppressed) > 0 {
		sec := root.Add(fmt.Sprintf("SUPPRESSED (%d): not counted, each with its reason", len(res.Suppressed)))
		for _, f := range res.Suppressed {
			n := f.AddText(sec, p)
			n.Add(fmt.Sprintf("suppressed by %s: %s", f.Suppressed.By, f.Suppressed.Reason))
		}
	}
	if len(res.BuildFailures) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT BUILT (%d): these tiers were not judged", len(res.BuildFailures))))
		for _, b := range res.BuildFailures {
			sec.AddMessage(fmt.Sprintf("%s (path %s): ", b.Kustomization, b.Path), b.Error)
		}
	}
	if len(res.NotCovered) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT COVERED (%d): built from another source, not judged", len(res.NotCovered))))
		for _, s := range res.NotCovered {
			sec.Add(s)
		}
	}
	if len(res.Undecoded) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT DECODED (%d): drawn from what could be read", len(res.Undecoded))))
		for _, u := range res.Undecoded {
			sec.Add(u)
		}
	}
	if len(res.Unrendered) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT RENDERED (%d): the CRDs they install are not known, so custom resources of those CRDs are noted as not verifiable", len(res.Unrendered))))
		for _, u := range res.Unrendered {
			sec.Add(u)
		}
	}
	if d := res.Diff; d != nil {
		diffText(root, d, p)
	}
	liveText(root, res.Live, len(res.Incomplete) > 0, p)
	output.AddIncomplete(root, res.Incomplete, p)
	verdict := fmt.Sprintf("verdict: %s (exit %d)", res.Verdict, res.ExitCode)
	if res.Verdict == "UNKNOWN" {
		verdict += ": " + unknownWhy(res)
	}
	root.Add(verdict)
	return root.Render(w, p)
}

// repoGitHub writes, under GITHUB_ACTIONS=true, one annotation per finding at its file and line
// and a step summary. Annotations go to stderr for json and yaml so those stay parseable.
func (o *FluxChainOptions) repoGitHub(res *RepoResult) error {
	if !ghactions.Enabled(o.repo.getenv) {
		return nil
	}
	w := o.Out
	if f := output.Format(o.PrintFlags.Format); f != output.Text {
		w = o.ErrOut
	}
	var as []ghactions.Annotation
	annotated := res.Lint
	if d := res.Diff; d != nil {
		// A pull request is annotated with what it adds; what was there stays in the summary.
		annotated = d.Added
		as = append(as, ghactions.Annotation{Level: ghactions.Notice, Title: "flux-chain --base " + d.Base, Message: d.Sentence()})
	}
	for _, f := range annotated {
		level := ghactions.Notice
		switch f.Severity {
		case lint.Error:
			level = ghactions.Error
		case lint.Warning:
			level = ghactions.Warning
		}
		as = append(as, ghactions.Annotation{Level: level, File: f.File, Line: f.Line,
			Title: "flux-chain " + f.Rule, Message: f.Message + "\nWhy: " + f.Why + "\nFix: " + f.Fix})
	}
	for _, b := range res.BuildFailures {
		as = append(as, ghactions.Annotation{Level: ghactions.Warning, Title: "flux-chain: not built", Message: b.Kustomization + ": " + b.Error})
	}
	for _, g := range res.Incomplete {
		as = append(as, ghactions.Annotation{Level: ghactions.Warning, Title: "flux-chain: live read failed", Message: g.String()})
	}
	full := ghactions.FullReport(o.PrintFlags.Format)
	ghactions.WriteAnnotations(w, as, full)
	return ghactions.AppendSummary(o.repo.getenv, repoSummary(res), full)
}

// repoSummary is the markdown step summary: a verdict line and one table row per finding.
func repoSummary(res *RepoResult) string {
	var b strings.Builder
	verdict := "clean"
	switch res.Verdict {
	case "FINDINGS":
		verdict = fmt.Sprintf("%d finding(s) at or above %s", lint.AtLeast(res.failing(), res.FailOn), res.FailOn)
	case "UNKNOWN":
		verdict = "UNKNOWN: " + unknownWhy(res)
	}
	fmt.Fprintf(&b, "## flux-chain --repo: %s\n\n%d Kustomizations in %d tiers from %s.\n\n", verdict, len(res.Kustomizations), len(res.Tiers), ghactions.Code(res.Path))
	b.WriteString(liveSummary(res.Live, res.Incomplete))
	if res.Diff != nil {
		b.WriteString(diffSummary(res.Diff))
	} else if len(res.Lint) > 0 {
		b.WriteString("| Severity | Rule | Where | Finding | Fix |\n|---|---|---|---|---|\n")
		for _, f := range res.Lint {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, ghactions.Cell(f.Location()), ghactions.Cell(f.Detail()), ghactions.Cell(f.Fix))
		}
		b.WriteString("\n")
	}
	if len(res.Suppressed) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d suppressed finding(s)</summary>\n\n| Rule | Where | Finding | Reason | By |\n|---|---|---|---|---|\n", len(res.Suppressed))
		for _, f := range res.Suppressed {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Rule, ghactions.Cell(f.Location()), ghactions.Cell(f.Message), ghactions.Cell(f.Suppressed.Reason), ghactions.Cell(f.Suppressed.By))
		}
		b.WriteString("\n</details>\n\n")
	}
	for _, bf := range res.BuildFailures {
		fmt.Fprintf(&b, "- ⚠️ not built: %s: %s\n", ghactions.Cell(bf.Kustomization), ghactions.Cell(bf.Error))
	}
	for _, nc := range res.NotCovered {
		fmt.Fprintf(&b, "- ⚠️ not covered: %s\n", ghactions.Cell(nc))
	}
	return b.String()
}

// unknownWhy says what kept the result from being judged, with counts.
func unknownWhy(res *RepoResult) string {
	var parts []string
	if n := len(res.BuildFailures); n > 0 {
		parts = append(parts, fmt.Sprintf("%d tier(s) not built", n))
	}
	if n := len(res.NotCovered); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tier(s) not covered (built from another source)", n, len(res.Kustomizations)))
	}
	if n := len(res.Undecoded); n > 0 {
		parts = append(parts, fmt.Sprintf("%d Flux object(s) not decoded", n))
	}
	if len(res.Incomplete) > 0 {
		parts = append(parts, "a read of the cluster failed")
	}
	return strings.Join(parts, ", ")
}

// diffText is the --base section of the text output: the sentence, then what was added and fixed.
func diffText(root *output.Node, d *RepoDiff, p output.Palette) {
	sec := root.Add(p.Bold(fmt.Sprintf("AGAINST BASE %s (%s): %s", d.Base, shortSHA(d.BaseCommit), d.Sentence())))
	if d.BaseNote != "" {
		sec.Add(d.BaseNote)
	}
	for _, part := range []struct {
		title string
		fs    []lint.Finding
	}{{"added", d.Added}, {"fixed", d.Fixed}} {
		for _, f := range part.fs {
			sec.Add(fmt.Sprintf("%s: %s %s %s: %s", part.title, strings.ToUpper(string(f.Severity)), f.Rule, f.Location(), f.Message))
		}
	}
}

// diffSummary is the markdown of --base: the sentence, the added findings, the fixed ones and,
// collapsed, those that were already there.
func diffSummary(d *RepoDiff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s%s** (compared with %s, %s).\n\n", strings.ToUpper(d.Sentence()[:1]), d.Sentence()[1:], ghactions.Code(d.Base), ghactions.Code(shortSHA(d.BaseCommit)))
	if d.BaseNote != "" {
		fmt.Fprintf(&b, "%s\n\n", ghactions.Cell(d.BaseNote))
	}
	table := func(fs []lint.Finding) {
		b.WriteString("| Severity | Rule | Where | Finding | Fix |\n|---|---|---|---|---|\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, ghactions.Cell(f.Location()), ghactions.Cell(f.Detail()), ghactions.Cell(f.Fix))
		}
		b.WriteString("\n")
	}
	if len(d.Added) > 0 {
		fmt.Fprintf(&b, "### Added by this pull request (%d)\n\n", len(d.Added))
		table(d.Added)
	}
	if len(d.Fixed) > 0 {
		fmt.Fprintf(&b, "### Fixed by this pull request (%d)\n\n", len(d.Fixed))
		table(d.Fixed)
	}
	if len(d.existing) > 0 {
		fmt.Fprintf(&b, "<details><summary>%d finding(s) already there at the base</summary>\n\n", len(d.existing))
		table(d.existing)
		b.WriteString("</details>\n\n")
	}
	return b.String()
}

// shortSHA is the first 12 characters of a commit.
func shortSHA(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
