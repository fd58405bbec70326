package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// applyCompletedWork reads, for a finalizer whose remover runs and is stalled while the object's
// own status records a failure (applyStatusFailure), the Jobs the object controls: the work its
// controller runs for it (a cleanup). When every one of them has completed, the failure the
// status records is past — the work is done — and what keeps the finalizer is a controller that
// no longer acts on an object it once marked failed. The Jobs are named, and removing the
// finalizer by hand comes first: nothing the Jobs did is undone by it. One Job not complete (or
// a read that failed) changes nothing.
func (x *Explainer) applyCompletedWork(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if field, _, _, _ := statusFailure(w.obj); field == "" {
		return
	}
	done, ok := x.completedJobs(ctx, o, lastChange(w.conditions))
	if !ok {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.Stalled == nil || !removerRuns(*f) || f.bypass == nil {
			continue
		}
		remover := f.Controllers[0].Object.String()
		f.Stalled.Evidence = append([]string{"the work it controls has completed since: " + strings.Join(done, "; ")}, f.Stalled.Evidence...)
		f.Stalled.LikelyReasons = append([]string{"its controller no longer acts on an object it marked failed, although the work that failed has completed since"}, f.Stalled.LikelyReasons...)
		strip := *f.bypass
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: the object's status still records a failure, but the work its controller runs for it has completed since (%s), and %s no longer acts on it. Nothing the work did is undone; read the Job's logs first if you need to see what it did.",
			f.Name, strings.Join(done, "; "), remover)
		strip.LastResort = false
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool {
			return r.Code == ReasonStripFinalizer || r.Code == ReasonFixStatusFailure
		})
		f.Remedies = append([]Remediation{strip}, rest...)
	}
}

// lastChange is when the latest of the conditions last changed (zero when none says).
func lastChange(conds []Condition) time.Time {
	var last time.Time
	for _, c := range conds {
		if c.LastTransition != nil && c.LastTransition.After(last) {
			last = *c.LastTransition
		}
	}
	return last
}

// completedJobs names the Jobs in o's namespace that o controls, each with when it completed,
// when there is at least one and every one has completed after failedAt (the object's last
// condition change: the failure it records); ok is false otherwise (or when they could not be
// listed).
func (x *Explainer) completedJobs(ctx context.Context, o subject, failedAt time.Time) ([]string, bool) {
	ns := o.obj.GetNamespace()
	if ns == "" {
		return nil, false
	}
	jobs, err := x.jobsIn(ctx, ns)
	if err != nil {
		return nil, false
	}
	var done []string
	for i := range jobs {
		j := &jobs[i]
		if !controlledBy(j.OwnerReferences, string(o.obj.GetUID())) {
			continue
		}
		at, ok := jobCompleted(j)
		if !ok || !at.Time.After(failedAt) {
			return nil, false
		}
		done = append(done, fmt.Sprintf("jobs.batch/%s -n %s completed %s ago", j.Name, ns, Age(x.now.Sub(at.Time))))
	}
	return done, len(done) > 0
}

// jobCompleted returns when a Job's Complete condition became True.
func jobCompleted(j *batchv1.Job) (metav1.Time, bool) {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime, true
		}
	}
	return metav1.Time{}, false
}
