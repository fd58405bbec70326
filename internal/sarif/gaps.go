package sarif

import (
	"github.com/kubeforensics/suite/internal/report"
)

// gapSummaries say, per gap reason, why a read or build failed, for the rule of that reason.
var gapSummaries = map[report.GapReason]string{
	report.GapForbidden:    "A read was forbidden by RBAC",
	report.GapUnauthorized: "The API server did not accept the credentials of a read",
	report.GapNotFound:     "What a read needed was not found",
	report.GapTimeout:      "A read timed out",
	report.GapUnreachable:  "The API server could not be reached for a read",
	report.GapDecodeError:  "An object read or built did not decode",
	report.GapTooLarge:     "A bound was reached and the rest was not read",
	report.GapUnsupported:  "A change or object of a shape that is not judged",
	report.GapNotReady:     "What would be read is still changing",
	report.GapNotRead:      "A read was not made (the list that holds it failed, or it is outside the scope read)",
	report.GapBuildFailed:  "A build or render failed",
	report.GapFailed:       "A read or build failed",
}

// GapRule is the rule of the gaps of one reason: incomplete-forbidden, incomplete-timeout…
// Each is a warning: what was not read is unknown, so the verdict cannot be SAFE or CLEAN.
func GapRule(r report.GapReason) Rule {
	summary, ok := gapSummaries[r]
	if !ok {
		summary = gapSummaries[report.GapFailed]
	}
	return Rule{ID: "incomplete-" + string(r), Level: Warning,
		Summary: summary + ": what it would show is unknown, so the verdict cannot be SAFE or CLEAN.",
		Help:    "The message names what was not read or built and why; the result's properties carry its op, reason and subject, and the tool's json output lists every gap."}
}

// GapRules are the rules of every gap reason, in report.GapReasons' order.
func GapRules() []Rule {
	var out []Rule
	for _, r := range report.GapReasons() {
		out = append(out, GapRule(r))
	}
	return out
}

// GapFinding is the result of one gap, under its reason's rule, with op, reason and subject as
// properties; it is identified by what is unknown, as before the gaps were typed.
func GapFinding(g report.Gap) Finding {
	props := map[string]any{"op": string(g.Op), "reason": string(g.Reason)}
	if g.Subject != (report.ObjectID{}) {
		props["subject"] = g.Subject
	}
	return Finding{Rule: GapRule(g.Reason).ID, Level: Warning, Message: g.String(), Identity: g.What, Properties: props}
}
