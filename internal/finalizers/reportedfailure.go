package finalizers

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// maxFailureMessage bounds an event message quoted in a step.
const maxFailureMessage = 300

// sinceRequest reports whether an event seen last at t may come after a deletion requested at
// requested: both are kept to the second, so an event in the same second may follow it.
func sinceRequest(t, requested time.Time) bool {
	return !t.Truncate(time.Second).Before(requested.Truncate(time.Second))
}

// applyReportedFailure leads the steps of a finalizer whose remover runs with what the object's
// own Warning events since the deletion say: a controller acts on the object and fails, and the
// failure it reports (a backend, a credential, a cluster it cannot reach) is the reason the
// finalizer stays, before anything its logs may add. Fixing that cause lets the controller
// finish; removing the finalizer by hand skips the very cleanup that fails.
func (x *Explainer) applyReportedFailure(e *Explanation, w ownWord, requested time.Time) {
	if e.Deleting {
		return
	}
	var last *Event
	for i, ev := range w.events {
		if ev.Type == corev1.EventTypeWarning && sinceRequest(ev.Last, requested) && (last == nil || ev.Last.After(last.Last)) {
			last = &w.events[i]
		}
	}
	if last == nil {
		return
	}
	msg := last.Message
	if len(msg) > maxFailureMessage {
		msg = msg[:maxFailureMessage] + "…"
	}
	times := ""
	if last.Count > 1 {
		times = fmt.Sprintf(", %d times", last.Count)
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || f.Stalled != nil {
			continue
		}
		s := fmt.Sprintf("%s acts on the object and fails: its Warning event %s (from %s%s, last %s ago, after the deletion) reports %q. Fix that cause first; %s then removes %s itself. Removing it by hand skips the very cleanup that fails.",
			f.Controllers[0].Object.String(), last.Reason, orUnknown(last.Source), times, Age(x.now.Sub(last.Last)), msg, f.Controllers[0].Object.String(), f.Name)
		f.Remedies = append([]Remediation{{Summary: s}}, f.Remedies...)
	}
}
