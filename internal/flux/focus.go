package flux

import "slices"

// Focus narrows the chain to one Kustomization, everything upstream of it and everything
// downstream of it. Tiers keep their numbers so a focused view lines up with the full one.
func (c *Chain) Focus(id string) *Chain {
	keep := map[string]bool{id: true}
	for _, other := range append(c.Upstream(id), c.Downstream(id)...) {
		keep[other] = true
	}
	out := &Chain{Tiers: [][]string{}, Findings: []Finding{}, RootCauses: []RootCause{}, Unaffected: []string{}}
	for _, tier := range c.Tiers {
		out.Tiers = append(out.Tiers, filter(tier, keep))
	}
	out.Unordered = filter(c.Unordered, keep)
	for _, n := range c.Kustomizations {
		if keep[n.ID] {
			out.Kustomizations = append(out.Kustomizations, n)
		}
	}
	appliedBy := c.helmReleaseAppliers()
	for _, rc := range c.RootCauses {
		holds := slices.ContainsFunc(rc.HeldBack, func(id string) bool { return keep[appliedBy[id]] })
		if tiers := filter(rc.Tiers, keep); keep[rc.Kustomization] || keep[rc.AppliedBy] || len(tiers) > 0 || holds {
			if rc.Tiers != nil {
				rc.Tiers = tiers
			}
			rc.BlastRadius = filter(rc.BlastRadius, keep)
			out.RootCauses = append(out.RootCauses, rc)
		}
	}
	out.Unevaluated = unevaluated(out.Kustomizations, out.RootCauses)
	for _, f := range c.Findings {
		if keep[f.Kustomization] {
			out.Findings = append(out.Findings, f)
		}
	}
	out.Unaffected = filter(c.Unaffected, keep)
	return out
}

func filter(ids []string, keep map[string]bool) []string {
	out := []string{}
	for _, id := range ids {
		if keep[id] {
			out = append(out, id)
		}
	}
	return out
}
