package finalizers

import (
	"context"
	"fmt"
	"slices"
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
func (x *Explainer) applyReportedFailure(ctx context.Context, e *Explanation, w ownWord, requested time.Time) {
	if e.Deleting {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || f.Stalled != nil {
			continue
		}
		last := x.removersLastWarning(ctx, f, w.events, requested)
		if last == nil {
			continue
		}
		msg := last.Message
		msg = clip(msg, maxFailureMessage)
		times := ""
		if last.Count > 1 {
			times = fmt.Sprintf(", %d times", last.Count)
		}
		s := fmt.Sprintf("%s acts on the object and fails: its Warning event %s (from %s%s, last %s ago, after the deletion) reports %q. Fix that cause first; %s then removes %s itself. Removing it by hand skips the very cleanup that fails.",
			f.Controllers[0].Object.String(), last.Reason, orUnknown(last.Source), times, Age(x.now.Sub(last.Last)), msg, f.Controllers[0].Object.String(), f.Name)
		f.Remedies = append([]Remediation{{Code: ReasonFixReportedFailure, Summary: s}}, f.Remedies...)
	}
}

// removersLastWarning is the latest Warning event on the object since the deletion that its
// remover may have reported: an event another component reported (eventByOther: the scheduler,
// the kubelet, another workload) is a fact about the object, not the remover's failure, and is
// kept as evidence on the remover instead. A failed list of workloads leaves every event in.
func (x *Explainer) removersLastWarning(ctx context.Context, f *Finalizer, events []Event, requested time.Time) *Event {
	ws, _ := x.workloads(ctx)
	var last *Event
	for i, ev := range events {
		if ev.Type != corev1.EventTypeWarning || !sinceRequest(ev.Last, requested) {
			continue
		}
		if by := eventByOther(ev.Source, f.Controllers[0].Object, ws); by != "" {
			line := fmt.Sprintf("the Warning event %s on the object comes from %s: a fact about the object, not a failure of this remover", ev.Reason, by)
			if !slices.Contains(f.Controllers[0].Evidence, line) {
				f.Controllers[0].Evidence = append(f.Controllers[0].Evidence, line)
			}
			continue
		}
		if last == nil || ev.Last.After(last.Last) {
			last = &events[i]
		}
	}
	return last
}
