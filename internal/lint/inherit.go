package lint

import (
	"slices"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/resourceset"
)

// inherited lists, for each Kustomization tier, the Kustomizations it waits for because what
// creates it waits for them first (flux.Node.Inherited): nothing a tier applies exists before
// the tier applies, and neither a Kustomization nor a ResourceSet applies before its
// dependsOn are Ready. Found on controlplaneio-fluxcd/d2-fleet, whose ResourceSet
// flux-system/apps renders each tenant's Kustomization and waits for monitoring/infra-configs
// (tenants/apps.yaml): those Kustomizations belong in a tier after it, not in tier 0.
func (r *Repo) inherited() map[string][]flux.InheritedDep {
	out := map[string][]flux.InheritedDep{}
	memo := map[string][]flux.InheritedDep{}
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		if t.Owner != "" || t.AppliedBy == "" {
			continue
		}
		var deps []flux.InheritedDep
		for _, d := range r.createdWaits(t.AppliedBy, memo, map[string]bool{}) {
			// What waits for one of its own creations deadlocks, which is no order; what the
			// Kustomization's own dependsOn names orders it already.
			if d.ID != id && !slices.Contains(t.Kustomization.DependsOn, d.ID) {
				deps = append(deps, d)
			}
		}
		if len(deps) > 0 {
			out[id] = deps
		}
	}
	return out
}

// createdWaits is what every object tier id applies waits for: the tier's own dependsOn (for
// a ResourceSet, its entries with ready: true that name a Kustomization, what a ResourceSet it
// depends on waits for and, when that one has wait: true, the Kustomizations it renders, which
// it is Ready only after), then what the tier that applies it waits for. Each once, the
// nearest object that waits for it named.
func (r *Repo) createdWaits(id string, memo map[string][]flux.InheritedDep, visiting map[string]bool) []flux.InheritedDep {
	if d, ok := memo[id]; ok {
		return d
	}
	t := r.Tiers[id]
	if t == nil || visiting[id] {
		return nil
	}
	visiting[id] = true
	defer delete(visiting, id)
	var out []flux.InheritedDep
	add := func(dep, via string) {
		if !slices.ContainsFunc(out, func(d flux.InheritedDep) bool { return d.ID == dep }) {
			out = append(out, flux.InheritedDep{ID: dep, Via: via})
		}
	}
	if t.Owner == gitops.OwnerResourceSet {
		via := "ResourceSet " + t.Kustomization.ID()
		for _, d := range resourceset.Dependencies(t.Kustomization.Object) {
			switch {
			case !d.Ready: // the operator waits only for it to exist
			case d.IsKustomization():
				add(d.ID(), via)
			case d.IsResourceSet():
				other := gitops.OwnerResourceSet + "/" + d.ID()
				for _, w := range r.createdWaits(other, memo, visiting) {
					add(w.ID, w.Via)
				}
				if o := r.Tiers[other]; o != nil && o.Kustomization.Wait {
					for _, kid := range r.IDs() {
						if k := r.Tiers[kid]; k.Owner == "" && k.AppliedBy == other {
							add(kid, via)
						}
					}
				}
			}
		}
	} else {
		for _, dep := range t.Kustomization.DependsOn {
			add(dep, "Kustomization "+id)
		}
	}
	if t.AppliedBy != "" {
		for _, w := range r.createdWaits(t.AppliedBy, memo, visiting) {
			add(w.ID, w.Via)
		}
	}
	memo[id] = out
	return out
}

// upstreamOf is every Kustomization tier id waits for, sorted: a Kustomization's upstream in
// the chain; for a ResourceSet's tier, which the chain draws no node for, what it waits for
// before it applies (createdWaits) and their upstream.
func (r *Repo) upstreamOf(id string) []string {
	if t := r.Tiers[id]; t == nil || t.Owner == "" {
		return r.Chain.Upstream(id)
	}
	var up []string
	for _, w := range r.createdWaits(id, map[string][]flux.InheritedDep{}, map[string]bool{}) {
		up = append(append(up, w.ID), r.Chain.Upstream(w.ID)...)
	}
	slices.Sort(up)
	return slices.Compact(up)
}
