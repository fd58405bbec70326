package flux

import (
	"errors"
	"maps"
	"slices"
	"sort"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// dependencies returns the ids a Kustomization depends on; a dependsOn entry without a
// namespace means the dependent's own namespace, as kustomize-controller reads it.
func dependencies(ks *kustomizev1.Kustomization) []string {
	var out []string
	for _, d := range ks.Spec.DependsOn {
		ns := d.Namespace
		if ns == "" {
			ns = ks.Namespace
		}
		out = append(out, ns+"/"+d.Name)
	}
	return out
}

// topology is the ordering of the dependsOn graph.
type topology struct {
	tiers     [][]string
	unordered []string
	// cycles holds each dependsOn cycle (a strongly connected component, or a Kustomization
	// that depends on itself) as its edges, sorted; the Kustomizations behind one are
	// unordered but in none.
	cycles   []cycle
	missing  map[string][]string // dependent id -> missing dependency ids
	children map[string][]string // dependency id -> dependent ids
}

// order sorts the dependsOn graph into tiers: tier 0 has no dependencies, and every other
// Kustomization sits one tier below its deepest dependency. gonum's topological sort (Tarjan's
// strongly connected components) orders the graph in linear time; a Kustomization in a cycle,
// or behind one, cannot be ordered and is listed as unordered, with the cycle's edges.
// Dependencies that name no known Kustomization are left out of the graph and reported.
//
// cli-utils' object graph did this before; its Sort rescans every edge for each vertex it
// removes, which took over a second at 5,000 Kustomizations (see BenchmarkBuild).
func order(nodes map[string]*Node) topology {
	t := topology{missing: map[string][]string{}, children: map[string][]string{}}
	ids := slices.Sorted(maps.Keys(nodes))
	index := make(map[string]int64, len(ids))
	g := simple.NewDirectedGraph()
	for i, id := range ids {
		index[id] = int64(i)
		g.AddNode(simple.Node(i))
	}
	blocked := map[string]bool{}
	var selfDep []string
	deps := map[string][]string{}
	inheritedVia := map[string]string{} // "id -> dep" of an inherited edge: the object that waits
	for _, id := range ids {
		own := len(nodes[id].DependsOn)
		for i, dep := range nodes[id].waits() {
			if _, ok := nodes[dep]; !ok {
				// An inherited dependency that does not exist is its creator's to report.
				if i < own {
					t.missing[id] = append(t.missing[id], dep)
				}
				continue
			}
			if i >= own {
				inheritedVia[id+" -> "+dep] = nodes[id].Inherited[slices.IndexFunc(nodes[id].Inherited, func(d InheritedDep) bool { return d.ID == dep })].Via
			}
			deps[id] = append(deps[id], dep)
			t.children[dep] = append(t.children[dep], id)
			if dep == id {
				blocked[id] = true // a self-dependency: gonum's simple graph has no self edges
				selfDep = append(selfDep, id)
				continue
			}
			g.SetEdge(g.NewEdge(simple.Node(index[dep]), simple.Node(index[id])))
		}
	}
	sorted, err := topo.Sort(g)
	component := map[string]int{} // cycle member -> its strongly connected component
	components := 0
	var unorderable topo.Unorderable
	if errors.As(err, &unorderable) {
		for _, c := range unorderable {
			for _, n := range c {
				blocked[ids[n.ID()]] = true
				component[ids[n.ID()]] = components
			}
			components++
		}
	}
	tierOf := map[string]int{}
	for _, n := range sorted {
		if n == nil {
			continue // a cycle, its members already blocked
		}
		id := ids[n.ID()]
		tier := 0
		for _, dep := range deps[id] {
			if blocked[dep] {
				blocked[id] = true
			}
			tier = max(tier, tierOf[dep]+1)
		}
		if blocked[id] {
			continue
		}
		tierOf[id] = tier
		for len(t.tiers) <= tier {
			t.tiers = append(t.tiers, nil)
		}
		t.tiers[tier] = append(t.tiers[tier], id)
	}
	for _, id := range ids {
		if blocked[id] {
			t.unordered = append(t.unordered, id)
		}
	}
	t.cycles = cycleEdges(components, component, selfDep, deps, inheritedVia)
	for _, tier := range t.tiers {
		sort.Strings(tier)
	}
	for _, c := range t.children {
		sort.Strings(c)
	}
	return t
}

// downstream returns every transitive dependent of id, sorted.
func (t topology) downstream(id string) []string {
	return reach(id, func(cur string) []string { return t.children[cur] })
}

// cycle is one dependsOn cycle: its members and the dependsOn entries from one member to
// another, both sorted.
type cycle struct {
	members, edges []string
}

// cycleEdges lists each cycle with its edges, the cycles in member order; a self-dependency
// not inside a larger cycle is a cycle of its own. Every edge appears in at most one cycle,
// so the list is no longer than the dependsOn entries. An inherited edge names the object
// whose dependsOn it comes from (via).
func cycleEdges(components int, component map[string]int, selfDep []string, deps map[string][]string, via map[string]string) []cycle {
	out := make([]cycle, components)
	for id, c := range component {
		out[c].members = append(out[c].members, id)
		for _, dep := range deps[id] {
			if dc, ok := component[dep]; ok && dc == c {
				edge := id + " -> " + dep
				if v := via[edge]; v != "" {
					edge += " (inherited from " + v + ")"
				}
				out[c].edges = append(out[c].edges, edge)
			}
		}
	}
	for _, id := range selfDep {
		if _, ok := component[id]; !ok {
			out = append(out, cycle{members: []string{id}, edges: []string{id + " -> " + id}})
		}
	}
	out = slices.DeleteFunc(out, func(c cycle) bool { return len(c.members) == 0 })
	for _, c := range out {
		sort.Strings(c.members)
		sort.Strings(c.edges)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].members[0] < out[j].members[0] })
	return out
}
