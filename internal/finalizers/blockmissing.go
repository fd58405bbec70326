package finalizers

import (
	"fmt"
	"slices"

	"github.com/kubeforensics/suite/internal/report"
)

// blockOnMissing makes blockers of the missing objects found for one finalizer whose remover
// runs, with the steps in order: create each again (or repoint the field), then the strip, the
// remover's logs last (before the strip when the missing object is only inferred). An object
// found missing both as a gone owner and through a spec field (`spec.cluster` naming the
// deleted Cluster that also owned the object) is the owner: it cannot come back as it was, so no
// "create it again" is offered for it through the field either, and it is named once.
func blockOnMissing(o subject, f *Finalizer, found []dangling, gaps []report.Gap) {
	// A missing object is proven: what an unread reference would add cannot clear it.
	f.Unchecked = append(f.Unchecked, gaps...)
	var fixes []Remediation
	var names []string
	gone := map[string]bool{}
	for _, d := range found {
		if !d.restorable {
			gone[d.ref.String()] = true
		}
	}
	for _, d := range found {
		f.Blockers = append(f.Blockers, Blocker{Object: d.ref, Code: ReasonMissingObject, Reason: d.reason,
			Details: append([]string{"read just now: not found"}, d.context...)})
		if !slices.Contains(names, d.ref.String()) {
			names = append(names, d.ref.String())
		}
		if d.restorable && !gone[d.ref.String()] {
			fixes = append(fixes, Remediation{Code: ReasonRestoreMissingObject,
				Summary: fmt.Sprintf("Create %s again, or repoint %s to an object that exists where the field may change: %s then completes the cleanup of %s and removes %s itself.", d.ref.String(), d.path, f.Controllers[0].Object.String(), o.ref().String(), f.Name)})
		}
	}
	// Reading the remover's logs comes last: what holds the finalizer is known. When it is
	// known only by inference, the logs (which name what the controller fails on) come
	// before the strip.
	rest, logs := splitRemedies(f.Remedies)
	f.Remedies = append(fixes, rest...)
	if !slices.ContainsFunc(found, func(d dangling) bool { return !d.inferred }) {
		f.Remedies, logs = append(f.Remedies, logs...), nil
	}
	if f.bypass != nil {
		strip := *f.bypass
		verb := "is"
		if len(names) > 1 {
			verb = "are"
		}
		strip.Summary = fmt.Sprintf("If %s %s gone for good, nothing will ever remove finalizer %s: remove it by hand. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", quote(names), verb, f.Name)
		if slices.ContainsFunc(found, func(d dangling) bool { return d.ref.Resource == "nodes" && d.ref.Group == "" }) {
			strip.Cost += "; what the object held on the gone node's own disks went with the node"
		}
		f.Remedies = append(f.Remedies, strip)
	}
	f.Remedies = append(f.Remedies, logs...)
	// Only missing targets: nothing is left on them to undo (gonetarget.go).
	targetsGone(f, found)
}
