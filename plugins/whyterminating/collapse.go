package whyterminating

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
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
		var kept []string
		folded := 0
		for _, gap := range f.Incomplete {
			if unreadable[listedType(gap)] {
				folded++
				continue
			}
			kept = append(kept, gap)
		}
		if folded > 0 {
			kept = append(kept, fmt.Sprintf("%d type(s) could not be listed here either (each named once at the end)", folded))
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

// listedType returns TYPE of a gap "listing TYPE in the namespace: reason" or "listing TYPE
// (could hold dependents): reason", "" for any other gap.
func listedType(gap string) string {
	rest, ok := strings.CutPrefix(gap, "listing ")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, " ")
	return t
}
