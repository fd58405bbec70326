package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxOwnNamespaces bounds the namespaces named for one object that are explained.
const maxOwnNamespaces = 3

// ownNamespaces are the namespaces named for a cluster-scoped object (its name, or a name that
// ends in "-" and its name) whose deletion was requested at or after the object's own: a
// controller that keeps a namespace per object (an execution space, a tenant's namespace)
// deletes it while it finalizes the object, and waits for it to go. Sorted by name, bounded.
func ownNamespaces(nss []corev1.Namespace, name string, requested time.Time) []corev1.Namespace {
	if len(name) < 3 {
		return nil
	}
	var out []corev1.Namespace
	for _, ns := range nss {
		if ns.DeletionTimestamp == nil || !sinceRequest(ns.DeletionTimestamp.Time, requested) {
			continue
		}
		if ns.Name == name || strings.HasSuffix(ns.Name, "-"+name) {
			out = append(out, ns)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) > maxOwnNamespaces {
		out = out[:maxOwnNamespaces]
	}
	return out
}

// applyOwnNamespaces makes the blockers of a cluster-scoped object's first finalizer the
// namespaces named for it that are being deleted since its own deletion (ownNamespaces), each
// explained below: what holds such a namespace holds the object, wherever its controller runs
// (in the cluster or outside it, through a kubeconfig). The step says to clear what holds them;
// the controller then removes its finalizer itself. A list that fails is recorded as unchecked.
func (x *Explainer) applyOwnNamespaces(ctx context.Context, o subject, e *Explanation, requested time.Time) {
	if o.obj.GetNamespace() != "" || o.res.Resource == "namespaces" || len(e.Finalizers) == 0 {
		return
	}
	list, err := x.c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		e.Unchecked = append(e.Unchecked, listGap(typeID(namespacesResource, ""), "listing the namespaces named for "+o.ref().String(), err))
		return
	}
	own := ownNamespaces(list.Items, o.obj.GetName(), requested)
	if len(own) == 0 {
		return
	}
	f := &e.Finalizers[0]
	var names []string
	for i := range own {
		ns := &own[i]
		b := Blocker{Object: refFor(namespacesResource, "", ns.Name), Code: ReasonNamedDependent,
			Reason: fmt.Sprintf("named for this object and being deleted since %s, after it: the controller that finalizes this object deletes it and waits for it to go", ns.DeletionTimestamp.UTC().Format(time.RFC3339))}
		b.Terminating = x.explain(ctx, namespacesResource, ns, o.depth+1)
		f.Blockers = append(f.Blockers, b)
		names = append(names, b.Object.String())
	}
	f.Remedies = append([]Remediation{{Summary: fmt.Sprintf("%s, named for this object and deleted after it, is what its controller waits for: clear what holds it (explained below); the controller then removes %s itself. Removing %s by hand leaves that namespace's content behind.", strings.Join(names, ", "), f.Name, f.Name)}}, f.Remedies...)
}
