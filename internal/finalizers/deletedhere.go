package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// maxLeftBindings bounds the cluster-wide bindings a strip names as left behind.
const maxLeftBindings = 5

// reinstallRefusedUnknown is reinstallRefused for a remover nothing in the cluster names: no
// workload, service account or installer is left to say where it ran. When the object's own
// namespace is being deleted, "reinstall the controller" cannot mean into that namespace (the
// API server refuses every new object in it), so the step becomes a note that says so
// (reinstalling it elsewhere helps only if it acts on this namespace from there), and the strip
// says why it is the way out. A named remover is reinstallRefused's; a live namespace, or one
// that could not be read (recorded as unchecked), leaves the steps as they are.
func (x *Explainer) reinstallRefusedUnknown(ctx context.Context, ns string, f *Finalizer) {
	if ns == "" || slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Object.Name != "" }) || productLeft(*f) {
		return
	}
	if !slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonReinstallController }) ||
		slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return strings.Contains(r.Summary, "it installed this type") }) {
		return
	}
	if since, _ := x.namespaceGoing(ctx, ns, &f.Unchecked); since == nil {
		return
	}
	for i, r := range f.Remedies {
		switch {
		case r.Code == ReasonReinstallController:
			f.Remedies[i] = Remediation{Summary: fmt.Sprintf("No workload, service account or installer of its controller is left in the cluster, and namespaces/%s is being deleted: the API server refuses every new object in it, so its controller cannot be installed there again. Installing it in another namespace helps only if it acts on this one from there; otherwise removing the finalizer by hand is the way out.", ns)}
		case r.Code == ReasonStripFinalizer && !strings.Contains(r.Summary, "namespaces/"+ns):
			f.Remedies[i].Summary = fmt.Sprintf("Remove finalizer %s by hand: nothing left in the cluster can remove it, and namespaces/%s, which is being deleted, refuses every new object, a controller installed into it included. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, ns)
		}
	}
}

// leftNamespaceRBAC names, on the strip of a finalizer whose object's namespace is being
// deleted, the cluster-wide RBAC that outlives that namespace: ClusterRoleBindings whose every
// subject is a service account of the namespace. Cluster-scoped objects cannot be owned by the
// namespace's objects, so the garbage collector never removes them; a finalizer of an object
// there is how a controller removes what it made cluster-wide, and stripping it leaves them
// bound to service accounts that no longer exist. The bindings that grant the finalizer's own
// remover candidates are left out (they are the controller's install, its installer's to remove).
// Bootstrap bindings are never named. A list that could not be read is recorded as unchecked.
func (x *Explainer) leftNamespaceRBAC(ctx context.Context, ns string, f *Finalizer) {
	i := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
	if ns == "" || i < 0 {
		return
	}
	if since, _ := x.namespaceGoing(ctx, ns, &f.Unchecked); since == nil {
		return
	}
	rb, err := x.rbac(ctx)
	if err != nil {
		f.Unchecked = append(f.Unchecked, listGap(objectID("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "", ""), "listing the cluster-wide RBAC that outlives namespaces/"+ns, err))
		return
	}
	var left []string
	for _, b := range rb.crbs {
		if b.Labels[bootstrapLabel] != "" || len(b.Subjects) == 0 {
			continue
		}
		ours, candidate := true, false
		for _, s := range b.Subjects {
			if s.Kind != "ServiceAccount" || s.Namespace != ns {
				ours = false
			}
			sa := saRef(s.Namespace, s.Name)
			if slices.ContainsFunc(f.Controllers, func(c Controller) bool {
				return c.Object.String() == sa || slices.Contains(c.Evidence, "runs as "+sa)
			}) {
				candidate = true
			}
		}
		if ours && !candidate {
			left = append(left, fmt.Sprintf("clusterrolebindings.rbac.authorization.k8s.io/%s (of clusterroles.rbac.authorization.k8s.io/%s)", b.Name, b.RoleRef.Name))
		}
	}
	if len(left) == 0 {
		return
	}
	slices.Sort(left)
	if len(left) > maxLeftBindings {
		left = append(left[:maxLeftBindings], fmt.Sprintf("and %d more", len(left)-maxLeftBindings))
	}
	list := strings.Join(left, ", ")
	f.Remedies[i].Summary += fmt.Sprintf(" It leaves behind, outside the namespace, the cluster-wide RBAC bound to its service accounts, which nothing else removes: %s; delete them once the namespace is gone.", list)
	f.Remedies[i].Cost = strings.TrimSuffix(f.Remedies[i].Cost, ".") + "; cluster-wide RBAC bound to service accounts of namespaces/" + ns + ": " + list
}
