package flux

import (
	"maps"
	"slices"
)

// reach returns every id reachable from start by following next, start itself left out,
// sorted. It is the one walk of the dependsOn graph: downstream (blast radius, focus, lint's
// gating tiers) follows dependents, upstream follows dependsOn.
func reach(start string, next func(string) []string) []string {
	seen := map[string]bool{}
	stack := slices.Clone(next(start))
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[cur] || cur == start {
			continue
		}
		seen[cur] = true
		stack = append(stack, next(cur)...)
	}
	return slices.Sorted(maps.Keys(seen))
}

// Downstream returns every Kustomization that depends on id, directly or through others,
// sorted: what waits while id is not Ready.
func (c *Chain) Downstream(id string) []string {
	byID := c.index()
	return reach(id, func(cur string) []string {
		if n := byID[cur]; n != nil {
			return n.Dependents
		}
		return nil
	})
}

// Upstream returns every Kustomization id depends on, directly or through others (inherited
// dependencies included), sorted; dependencies that name no Kustomization of the chain are
// included (and end the walk).
func (c *Chain) Upstream(id string) []string {
	byID := c.index()
	return reach(id, func(cur string) []string {
		if n := byID[cur]; n != nil {
			return n.waits()
		}
		return nil
	})
}

func (c *Chain) index() map[string]*Node {
	byID := make(map[string]*Node, len(c.Kustomizations))
	for _, n := range c.Kustomizations {
		byID[n.ID] = n
	}
	return byID
}
