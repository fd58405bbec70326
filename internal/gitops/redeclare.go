package gitops

import (
	"context"
	"fmt"
	"sort"

	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/resourceset"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// walk builds level after level, starting from level, the Kustomizations each build declares,
// until no build declares one not yet built, and returns all with every build's objects
// appended. A Kustomization is what the tier that applies it declares: when that tier's build
// yields it with another spec than the one recorded (the root Kustomization builds the entry
// path again with its own postBuild, or a tier is built again with the substitution sources
// other tiers declare, so `path: ./apps/${CLUSTER_NAME}` becomes the path Flux reads), the
// recorded one is replaced and built again, and the children it no longer declares are
// dropped with their own.
func (l *loader) walk(ctx context.Context, r *Tree, level []*Tier, all []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	for len(level) > 0 {
		if ctx.Err() != nil { // stopped: build no further level
			return nil, fmt.Errorf("walking the Kustomizations under %s: %w", r.Root, context.Cause(ctx))
		}
		var fresh []*Tier
		for _, t := range level {
			if old, seen := r.Tiers[t.ID()]; seen && !respecified(old, t) {
				continue
			}
			r.Tiers[t.ID()] = t
			fresh = append(fresh, t)
		}
		l.sources(ctx, all)
		if l.diskErr != nil {
			return nil, l.diskErr
		}
		l.buildAll(ctx, fresh)
		level = nil
		for _, t := range fresh {
			all = append(all, t.Objects...)
			level = append(level, declaredBy(r, t)...)
		}
		sort.Slice(level, func(i, j int) bool { return level[i].ID() < level[j].ID() })
		if len(level) == 0 {
			level = l.resourceSetTiers(r, all) // their Kustomizations join the walk
		}
	}
	return all, nil
}

// redeclared is what the tiers built again declare, for walk to compare with what was
// recorded: their Kustomizations, and their ResourceSets rendered again with the
// ResourceSetInputProviders among all.
func (l *loader) redeclared(r *Tree, rebuilt []*Tier, all []*unstructured.Unstructured) []*Tier {
	var rsips []*unstructured.Unstructured
	for _, o := range all {
		if resourceset.IsInputProvider(o) {
			rsips = append(rsips, o)
		}
	}
	var level []*Tier
	for _, t := range rebuilt {
		level = append(level, declaredBy(r, t)...)
		for i, o := range t.Objects {
			if !resourceset.Is(o) {
				continue
			}
			rt := resourceSetTier(o, rsips)
			rt.AppliedBy, rt.Kustomization.File = t.ID(), t.FileAt(i)
			if old := r.Tiers[rt.ID()]; old != nil && respecified(old, rt) {
				level = append(level, rt)
			}
		}
	}
	sort.Slice(level, func(i, j int) bool { return level[i].ID() < level[j].ID() })
	return level
}

// declaredBy returns the Kustomizations t's build declares, as tiers t applies, and records
// the ones that did not decode on t. When t was built, a Kustomization recorded as applied by
// t that its build no longer declares is dropped with its descendants: it was found in an
// earlier build of the same Kustomization (a name that depended on a variable not yet
// defined). The tiers of the ResourceSets t applies are redeclared's to renew.
func declaredBy(r *Tree, t *Tier) []*Tier {
	found, err := kbuild.KustomizationsWithFiles(t.Objects, t.Files)
	t.Undecoded = undecodedGaps(err)
	out := make([]*Tier, 0, len(found))
	ids := map[string]bool{}
	for _, ks := range found {
		c := &Tier{Kustomization: ks, AppliedBy: t.ID()}
		ids[c.ID()] = true
		out = append(out, c)
	}
	if t.Err == nil && len(t.Objects) > 0 && !t.NotBuilt() {
		for id, c := range r.Tiers { // deleting while ranging is allowed; the order does not matter
			if c != nil && c.Owner == "" && c.AppliedBy == t.ID() && id != t.ID() && !ids[id] {
				r.drop(id)
			}
		}
	}
	return out
}

// respecified says that t, declared again by the tier that applied old, has another spec
// (a Kustomization's, or the ResourceSet a ResourceSet's tier renders): the later build is the
// one with more of Flux's own inputs (its substitution sources).
func respecified(old, t *Tier) bool {
	if old.Owner != t.Owner || old.AppliedBy == "" || old.AppliedBy != t.AppliedBy {
		return false
	}
	return !equality.Semantic.DeepEqual(kbuild.Object(old.Kustomization).Object, kbuild.Object(t.Kustomization).Object)
}

// drop removes the tier id and, depth first, every tier it applies.
func (r *Tree) drop(id string) {
	delete(r.Tiers, id)
	for c, t := range r.Tiers {
		if t != nil && t.AppliedBy == id {
			r.drop(c)
		}
	}
}
