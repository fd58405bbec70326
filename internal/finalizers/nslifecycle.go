package finalizers

import (
	"context"
	"slices"
	"time"

	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// namespaceLifecycleManager is the field manager of Kubernetes' namespace controller, which
// writes a deleting namespace's status while it deletes the namespace's content.
const namespaceLifecycleManager = "kube-controller-manager"

// withoutNamespaceLifecycle drops from a namespace's own word the namespace controller's
// sweep once it is over (the namespace's own spec.finalizers, `kubernetes`, removed: its
// content is gone): its Namespace… conditions and its status writes report the deletion of the
// content, never work of the controller that holds one of the namespace's metadata finalizers.
// Counted as that work, they would keep such a finalizer "in progress" forever.
func withoutNamespaceLifecycle(o subject, w ownWord) ownWord {
	if o.res.Group != "" || o.res.Kind != "Namespace" || w.obj == nil {
		return w
	}
	if fins, _, _ := unstructured.NestedStringSlice(w.obj.Object, "spec", "finalizers"); len(fins) > 0 {
		return w
	}
	var conds []Condition
	for _, c := range w.conditions {
		if !strings.HasPrefix(c.Type, "Namespace") {
			conds = append(conds, c)
		}
	}
	w.conditions = conds
	if len(w.writes) > 0 {
		writes := map[string]time.Time{}
		for m, t := range w.writes {
			if m != namespaceLifecycleManager && m != namespaceLifecycleManager+" (status)" {
				writes[m] = t
			}
		}
		w.writes = writes
	}
	return w
}

// applyNamespaceStall gives a namespace's own metadata finalizers (a controller's, beside
// Kubernetes' `kubernetes` in its spec) the stalled-remover verdict, as any object's: their
// remover runs and shows no work on the namespace since its deletion was requested. Only the
// namespace's word is read for it (the namespace controller's sweep left out once it is over,
// withoutNamespaceLifecycle); referrers and references are not searched for a namespace.
func (x *Explainer) applyNamespaceStall(ctx context.Context, o subject, e *Explanation, requested time.Time) {
	if !slices.ContainsFunc(e.Finalizers, func(f Finalizer) bool { return removerRuns(f) && f.bypass != nil }) {
		return
	}
	w, gaps := x.readOwnWord(ctx, o, requested)
	e.Unchecked = append(e.Unchecked, gaps...)
	x.applyStalled(ctx, o, e, w, requested)
}
