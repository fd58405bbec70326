package finalizers

import "context"

// ownerBlocks reports whether an owner of the stuck object that no longer exists can hold the
// finalizer remover removes. It can, unless the remover reconciles the object's own type
// itself: a custom resource whose status it may update (`<resource>/status`, through a rule
// that names the type, not a cluster-admin one) is an object its controller watches and
// finalizes directly, so the owner's deletion — which is what cascaded to the object — is no
// reason it stops (a Katib Trial of a deleted Experiment: the trial controller writes Trials'
// status). A core object (a Pod) or a type the remover only updates is finalized through its
// owner, whose absence holds it. Unknown (no remover, RBAC or workloads unread) is "blocks".
func (x *Explainer) ownerBlocks(ctx context.Context, o subject, remover ObjectRef) bool {
	if o.res.Group == "" || remover.Name == "" {
		return true
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		return true
	}
	ws, err := x.workloads(ctx)
	if err != nil {
		return true
	}
	for _, w := range ws {
		if w.ref.String() != remover.String() {
			continue
		}
		for _, g := range rb.updaters(o.res.Group, o.res.Resource+"/status", o.obj.GetNamespace(), o.obj.GetName()) {
			if !g.broad && g.runsAs(w) {
				return false
			}
		}
	}
	return true
}

// withoutPassingOwner drops a gone owner from found unless it blocks (ownerBlocks) or the
// object's spec names it (ownerSpecPath).
func withoutPassingOwner(found []dangling, blocks bool) []dangling {
	if blocks {
		return found
	}
	var out []dangling
	for _, d := range found {
		if !d.owner || d.inSpec {
			out = append(out, d)
		}
	}
	return out
}
