package chain

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
)

// Markdown is the lint as GitHub shows it, in a step summary or a pull request's comment: a
// verdict line and one table row per finding; with --base what the candidate adds and fixes,
// with --live the comparison's counts.
func (res *RepoResult) Markdown() string {
	var b strings.Builder
	verdict := "clean"
	switch res.Verdict {
	case "FINDINGS":
		verdict = fmt.Sprintf("%d finding(s) at or above %s", lint.AtLeast(res.failing(), res.FailOn), res.FailOn)
	case "UNKNOWN":
		verdict = "UNKNOWN: " + res.UnknownWhy()
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
		fmt.Fprintf(&b, "- ⚠️ not covered: %s\n", ghactions.Cell(nc.String()))
	}
	return b.String()
}

// UnknownWhy says what kept the result from being judged, with counts.
func (res *RepoResult) UnknownWhy() string {
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

// diffSummary is the markdown of --base: the sentence, the added findings, the fixed ones and,
// collapsed, those that were already there.
func diffSummary(d *RepoDiff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s%s** (compared with %s, %s).\n\n", strings.ToUpper(d.Sentence()[:1]), d.Sentence()[1:], ghactions.Code(d.Base), ghactions.Code(ShortSHA(d.BaseCommit)))
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

// ShortSHA is the first 12 characters of a commit.
func ShortSHA(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// liveSummary is the step summary's line about --live, "" without it.
func liveSummary(l *LiveComparison, gaps []report.Gap) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Compared with %s: %d Kustomizations in both, %d only in the repository, %d only in the cluster, %d spec difference(s), %d CRD(s) only in the cluster.\n\n",
		ghactions.Cell(l.Target.String()), l.InBoth, len(l.NotInCluster), len(l.NotInRepo), len(l.SpecDrift), len(l.CRDsOnlyLive))
	for _, g := range gaps {
		fmt.Fprintf(&b, "- ⚠️ live read failed (%s): %s\n", ghactions.Code(string(g.Reason)), ghactions.Cell(g.String()))
	}
	return b.String()
}

// Annotations are the GitHub Actions annotations of the lint: one per finding at its file and
// line (with --base, the added ones and a notice of the sentence), one per tier not built and
// one per failed live read.
func (res *RepoResult) Annotations() []ghactions.Annotation {
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
		as = append(as, ghactions.Annotation{Level: ghactions.Warning, Title: "flux-chain: live read failed (" + string(g.Reason) + ")", Message: g.String()})
	}
	return as
}
