package gitops

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// resourceSetTimeout is the operator's default reconcile timeout, which its
// fluxcd.controlplane.io/reconcileTimeout annotation overrides.
const resourceSetTimeout = 5 * time.Minute

// resourceSetTiers is the loader's hook when a level of the walk runs dry: every ResourceSet
// the builds so far yield, not rendered yet, becomes a tier of its own (Owner "ResourceSet",
// id "ResourceSet/namespace/name") holding what it renders with the ResourceSetInputProviders
// among all. Those tiers are the next level, so the Kustomizations they render join the walk.
// A ResourceSet whose inputs need the network, or that does not render, is a tier with Err set
// (UNKNOWN for the gates), never an empty one.
func (l *loader) resourceSetTiers(r *Tree, all []*unstructured.Unstructured) []*Tier {
	if l.rendered == nil {
		l.rendered = map[string]bool{}
	}
	var rsips []*unstructured.Unstructured
	for _, o := range all {
		if gvk := o.GroupVersionKind(); gvk.Group == operatorGroup && gvk.Kind == rsipKind {
			rsips = append(rsips, o)
		}
	}
	var out []*Tier
	visit := func(appliedBy string, from *Tier) {
		for i, o := range from.Objects {
			if !IsResourceSet(o) {
				continue
			}
			t := resourceSetTier(o, rsips)
			t.AppliedBy = appliedBy
			t.Kustomization.File = from.FileAt(i)
			if l.rendered[t.ID()] || r.Tiers[t.ID()] != nil {
				continue
			}
			l.rendered[t.ID()] = true
			out = append(out, t)
		}
	}
	visit("", r.EntryBuild)
	for _, id := range r.IDs() {
		visit(id, r.Tiers[id])
	}
	return out
}

// resourceSetTier renders one ResourceSet into a tier. Its Kustomization stands for the
// ResourceSet: namespace, name, wait and timeout; prune is always on (the operator deletes
// what it no longer renders, unless the object opts out with ResourceSetPruneAnnotation).
func resourceSetTier(rset *unstructured.Unstructured, rsips []*unstructured.Unstructured) *Tier {
	ks := Kustomization{Namespace: rset.GetNamespace(), Name: rset.GetName(), Prune: true, Timeout: resourceSetTimeout}
	if d, err := time.ParseDuration(rset.GetAnnotations()[operatorGroup+"/reconcileTimeout"]); err == nil && d > 0 {
		ks.Timeout = d
	}
	ks.Wait, _, _ = unstructured.NestedBool(rset.Object, "spec", "wait")
	t := &Tier{Kustomization: ks, Owner: OwnerResourceSet}
	objs, unresolved, err := RenderResourceSet(rset, rsips)
	if err != nil {
		t.Err = fmt.Errorf("rendering ResourceSet %s/%s: %w", rset.GetNamespace(), rset.GetName(), err)
		return t
	}
	t.Objects, t.Unresolved = objs, unresolved
	return t
}
