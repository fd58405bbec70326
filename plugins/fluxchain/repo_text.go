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
			n := sec.Add(fmt.Sprintf("%s %s %s", severityText(f.Severity, p), p.Bold(f.Rule), f.Message))
			if loc := f.Location(); loc != "" {
				n.Add("at " + loc)
			}
			n.Add("why: " + f.Why)
			n.Add("fix: " + f.Fix)
		}
	}
	if len(res.BuildFailures) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT BUILT (%d): these tiers were not judged", len(res.BuildFailures))))
		for _, b := range res.BuildFailures {
			sec.Add(fmt.Sprintf("%s (path %s): %s", b.Kustomization, b.Path, b.Error))
		}
	}
	if len(res.NotCovered) > 0 {
		sec := root.Add("NOT COVERED (built from another source)")
		for _, s := range res.NotCovered {
			sec.Add(s)
		}
	}
	liveText(root, res.Live, p)
	return root.Render(w, p)
}

func severityText(s lint.Severity, p output.Palette) string {
	switch s {
	case lint.Error:
		return p.Bad(strings.ToUpper(string(s)))
	case lint.Warning:
		return p.Warn(strings.ToUpper(string(s)))
	}
	return strings.ToUpper(string(s))
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
	for _, f := range res.Lint {
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
	if res.Live != nil {
		for _, lw := range res.Live.Warnings {
			as = append(as, ghactions.Annotation{Level: ghactions.Warning, Title: "flux-chain: live read failed", Message: lw})
		}
	}
	ghactions.WriteAnnotations(w, as)
	return ghactions.AppendSummary(o.repo.getenv, repoSummary(res))
}

// repoSummary is the markdown step summary: a verdict line and one table row per finding.
func repoSummary(res *RepoResult) string {
	var b strings.Builder
	verdict := "clean"
	if n := lint.AtLeast(res.Lint, res.FailOn); n > 0 {
		verdict = fmt.Sprintf("%d finding(s) at or above %s", n, res.FailOn)
	} else if len(res.BuildFailures) > 0 {
		verdict = "UNKNOWN: not every path built"
	} else if res.Live.incomplete() {
		verdict = "UNKNOWN: a read of the cluster failed"
	}
	fmt.Fprintf(&b, "## flux-chain --repo: %s\n\n%d Kustomizations in %d tiers from %s.\n\n", verdict, len(res.Kustomizations), len(res.Tiers), ghactions.Code(res.Path))
	b.WriteString(liveSummary(res.Live))
	if len(res.Lint) > 0 {
		b.WriteString("| Severity | Rule | Where | Finding | Fix |\n|---|---|---|---|---|\n")
		for _, f := range res.Lint {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.Severity, f.Rule, ghactions.Cell(f.Location()), ghactions.Cell(f.Message), ghactions.Cell(f.Fix))
		}
		b.WriteString("\n")
	}
	for _, bf := range res.BuildFailures {
		fmt.Fprintf(&b, "- ⚠️ not built: %s: %s\n", ghactions.Cell(bf.Kustomization), ghactions.Cell(bf.Error))
	}
	return b.String()
}
