package saferetire

import (
	"io"
	"strconv"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/sarif"
)

// sarifTool is the driver name code scanning shows, and the start of the category.
const sarifTool = "safe-retire"

// PrintSARIF writes the result of an offline gate as SARIF 2.1.0 (docs/sarif.md): one result
// per removal, its rule the removal's reason code (error when unsafe, warning for a move, note
// otherwise), located at the manifest that declared the object at base; one warning per tier
// that did not build and per incomplete read, so an UNKNOWN verdict always shows.
func PrintSARIF(w io.Writer, res *Result) error {
	return sarif.Write(w, sarifReport(res))
}

// validateSARIF refuses -o sarif outside the offline gate: only there is every finding located
// in the repository.
func (o *SafeRetireOptions) validateSARIF() error {
	if output.Format(o.PrintFlags.Format) == sarif.Format && (!o.Offline || o.Orphans) {
		return exitcode.UsageErrorf("-o sarif is for the offline gate only (--dry-run --offline), whose findings are located in the repository")
	}
	return nil
}

// sarifReport maps res onto a SARIF run.
func sarifReport(res *Result) sarif.Report {
	var entry string
	if res.Layout != nil {
		entry = res.Layout.Entry
	}
	r, layout := sarif.ForRepository(sarifTool, res.Repo, res.Layout, entry)
	r.Rules, r.Verdict, r.ExitCode = sarifRules(), res.Verdict, res.ExitCode
	for _, rm := range res.Removals {
		r.Findings = append(r.Findings, removalFinding(rm))
	}
	for _, u := range res.Unbuilt {
		r.Findings = append(r.Findings, sarif.Finding{Rule: sarif.TierNotBuilt.ID, Level: sarif.Warning, Message: unbuiltLine(u),
			File: sarif.KustomizationFile(res.Repo, layout.FromTop(u.Path)), Identity: u.Kustomization + " " + u.Side,
			Properties: map[string]any{"kustomization": u.Kustomization, "side": u.Side}})
	}
	for _, g := range res.Incomplete {
		r.Findings = append(r.Findings, sarif.GapFinding(g))
	}
	for _, nc := range res.NotCovered {
		f := sarif.GapFinding(nc)
		f.Rule, f.Level, f.Identity = sarif.TierNotCovered.ID, sarif.Note, nc.String()
		f.Message = "not covered (built from another source; a change to it makes the verdict UNKNOWN, listed apart): " + nc.String()
		r.Findings = append(r.Findings, f)
	}
	return r
}

// sarifRules are the reason codes of removals, then the gaps.
func sarifRules() []sarif.Rule {
	var out []sarif.Rule
	for _, info := range retire.Reasons() {
		out = append(out, sarif.Rule{ID: string(info.Code), Level: reasonLevel(info.Code, info.Unsafe), Summary: info.Summary, Help: info.Help})
	}
	out = append(out, sarif.TierNotBuilt, sarif.TierNotCovered)
	return append(out, sarif.GapRules()...)
}

// reasonLevel: error for the codes that make a removal unsafe, warning for a move (whichever
// Kustomization reconciles first decides), note for the rest.
func reasonLevel(code retire.Reason, unsafe bool) string {
	switch {
	case unsafe:
		return sarif.Error
	case code == retire.ReasonMoved:
		return sarif.Warning
	}
	return sarif.Note
}

// removalFinding is one removal: its code, what happens to it and why.
func removalFinding(rm retire.Removal) sarif.Finding {
	info, _ := retire.LookupReason(rm.Reason)
	verdict := "safe"
	if rm.Unsafe {
		verdict = "UNSAFE"
	}
	msg := rm.Object.String() + " (Kustomization " + rm.Kustomization + "): " + string(rm.Outcome) + ", " + verdict + ". "
	switch {
	case len(rm.Reasons) > 0:
		msg += strings.Join(rm.Reasons, "; ") + "."
	default:
		msg += info.Summary
	}
	if rm.OptOut != "" {
		msg += " Kept by " + rm.OptOut + "."
	}
	if len(rm.Plan) > 0 {
		msg += " Retire it in stages: " + stageTitles(rm.Plan) + " (the text or json output has the commands)."
	}
	codes := make([]string, len(rm.ReasonCodes))
	for i, c := range rm.ReasonCodes {
		codes[i] = string(c)
	}
	props := map[string]any{"object": rm.Object.String(), "id": rm.ID, "kustomization": rm.Kustomization, "outcome": string(rm.Outcome), "unsafe": rm.Unsafe}
	if len(codes) > 0 {
		props["reasonCodes"] = codes
	}
	return sarif.Finding{Rule: string(rm.Reason), Level: reasonLevel(rm.Reason, rm.Unsafe), Message: msg, File: rm.File, Line: rm.Line,
		Identity: rm.Kustomization + " " + rm.ID, Properties: props}
}

// stageTitles lists a plan's stages, "1 protect, 2 drain, …", the done ones marked.
func stageTitles(plan []retire.Stage) string {
	parts := make([]string, len(plan))
	for i, s := range plan {
		parts[i] = strconv.Itoa(s.Number) + " " + s.Title
		if s.Done {
			parts[i] += " (done by this change)"
		}
	}
	return strings.Join(parts, ", ")
}
