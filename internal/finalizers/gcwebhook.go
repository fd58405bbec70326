package finalizers

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// collectorRefused names the fail-closed admission webhooks that answer and see the garbage
// collector's own update of o, once the collector has had nothing left to wait for: no blocking
// dependent, no undiscoverable group, and the deletion requested longer ago than stallAfter. The
// collector removes foregroundDeletion or orphan with an UPDATE of the object within seconds of its
// last dependent going; when the finalizer stays, a webhook in that update's path that answers is
// the one thing that can refuse it (a product's webhook that lets only its controller change the
// objects it owns). A webhook whose service is down is already named by explainFinalizer. Its
// step is the webhook's product, never a strip: removing the finalizer by hand is the same
// UPDATE, and the same webhook refuses it.
func (x *Explainer) collectorRefused(ctx context.Context, o subject, f *Finalizer) {
	ts := o.obj.GetDeletionTimestamp()
	if len(f.Blockers) > 0 || ts == nil || x.now.Sub(ts.Time) < stallAfter || len(x.catalog.Failed) > 0 {
		return
	}
	req := apiRequest{op: admissionv1.Update, res: o.res, namespace: o.obj.GetNamespace(), labels: o.obj.GetLabels(), labelsKnown: true}
	hooks, gaps := x.interceptors(ctx, req)
	f.Incomplete = append(f.Incomplete, gaps...)
	var blockers []Blocker
	for _, w := range hooks {
		down, gap := x.serviceDown(ctx, w.service.Namespace, w.service.Name)
		if gap != (report.Gap{}) || down != "" {
			// Unknown, or down: explainFinalizer names a webhook that cannot answer.
			continue
		}
		blockers = append(blockers, Blocker{
			Object: w.config,
			Code:   ReasonWebhookRejectsUpdate,
			Reason: fmt.Sprintf("intercepts every UPDATE of %s (webhook %s, failurePolicy Fail) and answers: the garbage collector has had no dependent to wait for, yet %s stays %s after the deletion — the webhook refuses the collector's update that removes it",
				req.what(), w.name, f.Name, Age(x.now.Sub(ts.Time))),
			Details: []string{fmt.Sprintf("its service services/%s -n %s has a ready endpoint", w.service.Name, w.service.Namespace)},
			webhook: w.name,
		})
	}
	if len(blockers) == 0 {
		return
	}
	f.Blockers = append(f.Blockers, blockers...)
	var steps []Remediation
	for _, b := range blockers {
		steps = append(steps, Remediation{Summary: fmt.Sprintf("%s (webhook %s) refuses the garbage collector's update of %s: update or reconfigure the product that serves it so that it lets a change of only the finalizers through; the collector then finishes on its own. Removing %s by hand is the same update, which the webhook refuses too.",
			b.Object.String(), b.webhook, o.ref().String(), f.Name)})
	}
	f.Remedies = steps
}
