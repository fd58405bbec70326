package retire

import (
	"fmt"
	"strings"
)

// AssessWedge sets r.Wedge when pruning r would leave an object stuck Terminating under a
// Kustomization that waits on health: while a finalizer's holder stays (a pod mounting the claim
// keeps kubernetes.io/pvc-protection), the deletion cannot finish; once this revision is undone —
// a speculative deploy evicted, a revert — the Kustomization declares an object that cannot be
// recreated mid-deletion, and its health check fails on every retry. downstream lists the
// Kustomizations that depend on ks, directly or not: they are frozen until it recovers.
func AssessWedge(r *Removal, ks Kustomization, downstream []string) {
	if r.Outcome != Pruned || r.Live == nil || !r.Live.Exists {
		return
	}
	var holders []string
	for _, b := range r.Live.Consumers {
		holders = append(holders, "pod "+b.Object.Name)
	}
	if len(holders) == 0 && r.Live.Terminating && len(r.Live.Finalizers) > 0 {
		holders = append(holders, "finalizers "+strings.Join(r.Live.Finalizers, ", "))
	}
	if len(holders) == 0 {
		return
	}
	w := &Wedge{Kustomization: ks.ID(), Timeout: ks.Timeout, Frozen: append([]string{}, downstream...)}
	w.Why = fmt.Sprintf("%s holds %s in Terminating after the prune", strings.Join(holders, ", "), r.Object)
	if ks.Wait || ks.HealthChecks {
		w.Why += fmt.Sprintf("; if this revision is undone (an evicted speculative deploy, a revert), Kustomization %s re-declares it and its health check times out", ks.ID())
		if ks.Timeout != "" {
			w.Why += " after " + ks.Timeout
		}
		w.Why += " on every retry"
	} else {
		w.Why += fmt.Sprintf("; Kustomization %s does not wait on health, so only a re-apply of the object fails", ks.ID())
	}
	if len(downstream) > 0 {
		w.Why += ", freezing " + strings.Join(downstream, ", ")
	}
	r.Wedge = w
	r.Unsafe = true
	r.addReason(ReasonPruneWedge, w.Why)
}
