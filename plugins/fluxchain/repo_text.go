package fluxchain

import (
	"fmt"
	"io"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/gitops"
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
			sec.AddMessage(gitops.TierName(b.Kustomization, b.Path)+": ", b.Error)
		}
	}
	if len(res.NotCovered) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT COVERED (%d): built from another source, not judged", len(res.NotCovered))))
		for _, s := range res.NotCovered {
			sec.Add(s.String())
		}
	}
	if len(res.Undecoded) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT DECODED (%d): drawn from what could be read", len(res.Undecoded))))
		for _, u := range res.Undecoded {
			sec.Add(u.String())
		}
	}
	if len(res.Unrendered) > 0 {
		sec := root.Add(p.Warn(fmt.Sprintf("NOT RENDERED (%d): the CRDs they install are not known, so custom resources of those CRDs are noted as not verifiable", len(res.Unrendered))))
		for _, u := range res.Unrendered {
			sec.Add(u.String())
		}
	}
	res.Diff.AddText(root, p)
	res.Live.AddText(root, len(res.Incomplete) > 0, p)
	output.AddIncomplete(root, res.Incomplete, p)
	verdict := fmt.Sprintf("verdict: %s (exit %d)", res.Verdict, res.ExitCode)
	if res.Verdict == "UNKNOWN" {
		verdict += ": " + res.UnknownWhy()
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
	as := res.Annotations()
	full := ghactions.FullReport(o.PrintFlags.Format)
	ghactions.WriteAnnotations(w, as, full)
	return ghactions.AppendSummary(o.repo.getenv, res.Markdown(), full)
}
