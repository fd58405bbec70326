package chain

import (
	"strings"

	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/sarif"
)

// sarifTool is the driver name code scanning shows, and the start of the category.
const sarifTool = "flux-chain"

// SARIF maps the lint of a repository onto a SARIF 2.1.0 run (docs/sarif.md): one result
// per finding at its file and line, its rule the lint rule; suppressed findings kept with
// their reason as a suppression; and one warning per tier not built or not covered, per Flux
// object that did not decode and per failed live read, so an UNKNOWN verdict always shows.
func (res *RepoResult) SARIF() sarif.Report {
	return repoSARIF(res)
}

// repoSARIF maps res onto a SARIF run.
func repoSARIF(res *RepoResult) sarif.Report {
	r, layout := sarif.ForRepository(sarifTool, res.Repo, res.Layout, res.Path)
	r.Rules, r.Verdict, r.ExitCode = lintRules(), res.Verdict, res.ExitCode
	for _, f := range res.Lint {
		r.Findings = append(r.Findings, lintFinding(f))
	}
	for _, f := range res.Suppressed {
		sf := lintFinding(f)
		sf.Suppressed = "suppressed"
		if f.Suppressed != nil {
			sf.Suppressed = f.Suppressed.Reason + " (" + f.Suppressed.By + ")"
		}
		r.Findings = append(r.Findings, sf)
	}
	for _, b := range res.BuildFailures {
		msg := "Kustomization " + b.Kustomization + " (path " + b.Path + ") did not build, so its objects were not judged: " + b.Error
		if len(b.RemoteURLs) > 0 {
			msg += " (remote: " + strings.Join(b.RemoteURLs, ", ") + "; --allow-network fetches them)"
		}
		r.Findings = append(r.Findings, sarif.Finding{Rule: sarif.TierNotBuilt.ID, Level: sarif.Warning, Message: msg,
			File: sarif.KustomizationFile(res.Repo, layout.FromTop(b.Path)), Identity: b.Kustomization,
			Properties: map[string]any{"kustomization": b.Kustomization}})
	}
	for _, nc := range res.NotCovered {
		f := sarif.GapFinding(nc)
		f.Rule, f.Message = sarif.TierNotCovered.ID, "not covered: "+nc.String()
		r.Findings = append(r.Findings, f)
	}
	for _, u := range res.Undecoded {
		f := sarif.GapFinding(u)
		f.Rule, f.Message, f.Identity = sarif.ObjectUndecoded.ID, "did not decode: "+u.String(), u.String()
		r.Findings = append(r.Findings, f)
	}
	for _, g := range res.Incomplete {
		r.Findings = append(r.Findings, sarif.GapFinding(g))
	}
	return r
}

// lintRules are the lint rules (their why as the summary, their fix as the help), then the
// gaps.
func lintRules() []sarif.Rule {
	var out []sarif.Rule
	for _, rule := range lint.Rules() {
		out = append(out, sarif.Rule{ID: rule.ID, Level: severityLevel(rule.Severity), Summary: rule.Why, Help: rule.Fix})
	}
	out = append(out, sarif.TierNotBuilt, sarif.TierNotCovered, sarif.ObjectUndecoded)
	return append(out, sarif.GapRules()...)
}

// severityLevel maps a lint severity onto a SARIF level (info is note).
func severityLevel(s lint.Severity) string {
	switch s {
	case lint.Error:
		return sarif.Error
	case lint.Warning:
		return sarif.Warning
	}
	return sarif.Note
}

// lintFinding is one finding: the message and its fix, identified by its tiers and objects.
func lintFinding(f lint.Finding) sarif.Finding {
	objects := Objects(f)
	msg := f.Message
	if f.Fix != "" {
		// Lint messages end without a full stop; the fix is a sentence of its own.
		msg = strings.TrimRight(msg, ". ") + ". Fix: " + f.Fix
	}
	props := map[string]any{"severity": string(f.Severity)}
	if tiers := f.Tiers(); len(tiers) > 0 && tiers[0] != "" {
		props["kustomizations"] = tiers
	}
	if len(objects) > 0 {
		props["objects"] = objects
	}
	return sarif.Finding{Rule: f.Rule, Level: severityLevel(f.Severity), Message: msg, File: f.File, Line: f.Line,
		Identity: Identity(f), Properties: props}
}
