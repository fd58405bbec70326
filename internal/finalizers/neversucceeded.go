package finalizers

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// failureWords and successWords classify a condition by its type: a condition of a failure type
// that is True, or one of a success type that is True.
var (
	failureWords = []string{"error", "fail"}
	successWords = []string{"ready", "success", "succeeded", "synced", "available", "created", "provisioned", "reconciled", "established", "applied"}
)

func conditionTypeHas(t string, words []string) bool {
	t = strings.ToLower(t)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(t, w) })
}

// neverSucceeded returns the failure condition that shows the object's controller never
// completed it: a condition of a failure type True since before the deletion, and no condition
// of a success type True; the object's spec and status record no external resource either.
func neverSucceeded(w ownWord, requested time.Time) (Condition, bool) {
	var failed *Condition
	for i, c := range w.conditions {
		switch {
		case c.Status != "True":
		case conditionTypeHas(c.Type, failureWords):
			if c.LastTransition != nil && c.LastTransition.Before(requested) && failed == nil {
				failed = &w.conditions[i]
			}
		case conditionTypeHas(c.Type, successWords):
			return Condition{}, false
		}
	}
	if failed == nil || (w.obj != nil && len(recordedResources(w.obj)) > 0) {
		return Condition{}, false
	}
	return *failed, true
}

// applyNeverSucceeded offers, for a finalizer whose remover runs but fails on an object its
// controller never completed (neverSucceeded), the removal of that one finalizer by hand: what
// the cleanup would remove outside the cluster was most likely never made, so the strip leaves
// nothing there, unless the object was made after all (the condition says it was not). It comes
// after the steps that fix the reported cause, as the way out when that cause is not to be fixed
// (a permission the controller should never have needed for an object that is going away).
func (x *Explainer) applyNeverSucceeded(e *Explanation, w ownWord, requested time.Time) {
	if e.Deleting {
		return
	}
	c, ok := neverSucceeded(w, requested)
	if !ok {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || f.bypass == nil || slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer }) {
			continue
		}
		why := c.Reason
		if why != "" {
			why = " (" + why + ")"
		}
		strip := *f.bypass
		strip.Summary = fmt.Sprintf("The object's own conditions say its controller never completed it: %s=True%s since %s, before the deletion, and no condition reports a success; its spec and status record nothing made outside the cluster. What the cleanup behind %s would remove was then most likely never made: unless you know otherwise, remove finalizer %s by hand. The patch removes only this entry, and the API server refuses it if the list changed since it was read.",
			c.Type, why, c.LastTransition.UTC().Format(time.RFC3339), f.Name, f.Name)
		strip.Cost = "left behind: nothing, if the object was never made outside the cluster, as its conditions say; otherwise what the controller would have cleaned up there"
		f.Remedies = append(f.Remedies, strip)
	}
}
