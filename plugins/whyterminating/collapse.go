package whyterminating

import (
	"fmt"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
)

// collapseGaps returns a copy of e for the text printer in which each finalizer's failed lists
// of types that the sweep already reports as unreadable are folded into one line: under a
// narrow role, -A would otherwise repeat every forbidden type under every namespace.
func collapseGaps(e *finalizers.Explanation, unreadable map[string]bool) *finalizers.Explanation {
	if len(unreadable) == 0 || e == nil {
		return e
	}
	c := *e
	c.Finalizers = make([]finalizers.Finalizer, len(e.Finalizers))
	for i, f := range e.Finalizers {
		var kept, folded []report.Gap
		for _, gap := range f.Incomplete {
			if unreadable[listedType(gap)] {
				folded = append(folded, gap)
				continue
			}
			kept = append(kept, gap)
		}
		if len(folded) > 0 {
			kept = append(kept, report.Gap{Op: report.OpList, Reason: sameReason(folded),
				What: fmt.Sprintf("%d type(s) could not be listed here either (each named once at the end)", len(folded))})
		}
		f.Incomplete = kept
		f.Blockers = append([]finalizers.Blocker(nil), f.Blockers...)
		for j := range f.Blockers {
			f.Blockers[j].Terminating = collapseGaps(f.Blockers[j].Terminating, unreadable)
		}
		c.Finalizers[i] = f
	}
	return &c
}

// listedType returns the type, fully qualified, of a gap that is a failed list of a type, ""
// for any other gap.
func listedType(gap report.Gap) string {
	if gap.Op != report.OpList || gap.Subject.Name != "" {
		return ""
	}
	return gap.Subject.QualifiedType()
}

// sameReason is the reason the gaps share, GapFailed when they differ.
func sameReason(gaps []report.Gap) report.GapReason {
	r := gaps[0].Reason
	for _, g := range gaps[1:] {
		if g.Reason != r {
			return report.GapFailed
		}
	}
	return r
}
