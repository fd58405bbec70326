package finalizers

import (
	"context"
	"fmt"
	"slices"
)

// behindOwnWebhook drops the strip of a finalizer whose removal a fail-closed webhook rejects
// (hooks: its backend cannot answer) when that backend is still installed and belongs to the
// finalizer's own product: a candidate remover, or a workload tied to the finalizer's domain.
// Bringing it back is the fix (it comes first), and then the product's controller, which is
// installed, removes the finalizer itself; until then the API server refuses the strip's patch
// anyway. With the webhook's product uninstalled (its Service gone, no workload behind it) the
// strip stays as the last resort.
func (x *Explainer) behindOwnWebhook(ctx context.Context, f *Finalizer, hooks []Blocker) {
	if len(hooks) == 0 || !slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer }) {
		return
	}
	for _, b := range hooks {
		if b.service == nil {
			continue
		}
		ws, exists, err := x.backendWorkloads(ctx, *b.service)
		if err != nil || !exists {
			continue
		}
		for _, w := range ws {
			why, ok := x.ofTheProduct(ctx, f, w)
			if !ok {
				continue
			}
			f.Remedies = slices.DeleteFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
			f.Remedies = append(f.Remedies, Remediation{Summary: fmt.Sprintf("Do not remove %s by hand: %s, behind %s, %s; once it answers again, the product's controller removes the finalizer itself, and until then the API server refuses the patch anyway.",
				f.Name, w.ref.String(), b.Object.String(), why)})
			return
		}
	}
}

// ofTheProduct says whether w belongs to the finalizer's product: it is one of its candidate
// removers, or the cluster ties it to the finalizer's domain (high confidence: it acts on or
// serves the domain's own types).
func (x *Explainer) ofTheProduct(ctx context.Context, f *Finalizer, w workload) (string, bool) {
	for _, c := range f.Controllers {
		if c.Object == w.ref {
			return "is a remover of this finalizer", true
		}
	}
	if f.Domain == "" {
		return "", false
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		return "", false
	}
	idx, err := x.products(ctx)
	if err != nil {
		return "", false
	}
	ts := x.workloadTies(ctx, f.Domain, w, idx, rb)
	if len(ts) == 0 || ts[0].conf != ConfidenceHigh {
		return "", false
	}
	return "is of the finalizer's own product (" + ts[0].evidence + ")", true
}
