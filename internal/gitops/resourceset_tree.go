package gitops

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/resourceset"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// OwnerResourceSet is Tier.Owner for the objects a Flux Operator ResourceSet renders.
const OwnerResourceSet = "ResourceSet"

// resourceSetTiers is what the walk builds next when a level runs dry: every ResourceSet
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
		if resourceset.IsInputProvider(o) {
			rsips = append(rsips, o)
		}
	}
	var out []*Tier
	visit := func(appliedBy string, from *Tier) {
		for i, o := range from.Objects {
			if !resourceset.Is(o) {
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
// ResourceSet: namespace, name, wait, timeout and the Flux Kustomizations it waits for
// (spec.dependsOn), and Object is the ResourceSet itself; prune
// is always on (the operator deletes what it no longer renders, unless the object opts out
// with resourceset.PruneAnnotation).
func resourceSetTier(rset *unstructured.Unstructured, rsips []*unstructured.Unstructured) *Tier {
	ks := kbuild.Kustomization{Namespace: rset.GetNamespace(), Name: rset.GetName(), Prune: true, Timeout: resourceset.Timeout(rset), Object: rset,
		DependsOn: resourceset.DependsOn(rset)}
	ks.Wait, _, _ = unstructured.NestedBool(rset.Object, "spec", "wait")
	t := &Tier{Kustomization: ks, Owner: OwnerResourceSet, RenderedFrom: append([]*unstructured.Unstructured{rset}, rsips...)}
	objs, unresolved, err := resourceset.Render(rset, rsips)
	if err != nil {
		t.Err = fmt.Errorf("not rendered: %w", err) // the tier's id names the ResourceSet
		return t
	}
	t.Objects, t.Unresolved = objs, unresolved
	return t
}

// resourceSetFiles names, for each object of ResourceSet tier t, the file that declares the
// ResourceSet (found in a build of the tier that applies it, with files); "" when unknown.
func (r *Tree) resourceSetFiles(ctx context.Context, t *Tier) []string {
	var parent *Tier
	if t.AppliedBy == "" { // declared by the entry itself
		opts := r.opts
		opts.NoFiles = false
		if eb := kbuild.BuildPath(ctx, r.Root, r.Entry, opts); eb.Err == nil {
			parent = &Tier{Objects: eb.Objects, Files: eb.Files}
		}
	} else {
		parent = r.WithFiles(ctx, t.AppliedBy)
	}
	if parent == nil {
		return nil
	}
	file := ""
	for i, o := range parent.Objects {
		if resourceset.Is(o) && o.GetNamespace() == t.Kustomization.Namespace && o.GetName() == t.Kustomization.Name {
			file = parent.FileAt(i)
		}
	}
	files := make([]string, len(t.Objects))
	for i := range files {
		files[i] = file
	}
	return files
}

// TierName names tier id for a reader: "Kustomization namespace/name (path p)", or
// "ResourceSet namespace/name" for a ResourceSet's tier, which has no path.
func TierName(id, path string) string {
	if rset, ok := strings.CutPrefix(id, OwnerResourceSet+"/"); ok {
		return OwnerResourceSet + " " + rset
	}
	return fmt.Sprintf("Kustomization %s (path %s)", id, path)
}
