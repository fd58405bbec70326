package flux

import (
	"errors"
	"fmt"
	"sort"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/object"
	"sigs.k8s.io/cli-utils/pkg/object/graph"
)

var kustomizationGK = schema.GroupKind{Group: kustomizev1.GroupVersion.Group, Kind: kustomizev1.KustomizationKind}

// vertex is the graph identity of the Kustomization ns/name.
func vertex(namespace, name string) object.ObjMetadata {
	return object.ObjMetadata{GroupKind: kustomizationGK, Namespace: namespace, Name: name}
}

func idOf(v object.ObjMetadata) string { return v.Namespace + "/" + v.Name }

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
	// cycle holds the edges left when no further tier could be peeled off.
	cycle    []string
	missing  map[string][]string // dependent id -> missing dependency ids
	children map[string][]string // dependency id -> dependent ids
}

// order builds the dependsOn graph with cli-utils' object graph and sorts it into tiers.
// Dependencies that name no known Kustomization are left out of the graph and reported.
func order(nodes map[string]*Node) topology {
	g := graph.New()
	t := topology{missing: map[string][]string{}, children: map[string][]string{}}
	ids := sortedKeys(nodes)
	for _, id := range ids {
		n := nodes[id]
		g.AddVertex(vertex(n.Namespace, n.Name))
	}
	for _, id := range ids {
		n := nodes[id]
		for _, dep := range n.DependsOn {
			d, ok := nodes[dep]
			if !ok {
				t.missing[id] = append(t.missing[id], dep)
				continue
			}
			g.AddEdge(vertex(n.Namespace, n.Name), vertex(d.Namespace, d.Name))
			t.children[dep] = append(t.children[dep], id)
		}
	}
	sets, err := g.Sort()
	placed := map[string]bool{}
	for _, set := range sets {
		tier := make([]string, 0, len(set))
		for _, v := range set {
			tier = append(tier, idOf(v))
			placed[idOf(v)] = true
		}
		sort.Strings(tier)
		t.tiers = append(t.tiers, tier)
	}
	var cyc graph.CyclicDependencyError
	if errors.As(err, &cyc) {
		for _, e := range cyc.Edges {
			t.cycle = append(t.cycle, fmt.Sprintf("%s -> %s", idOf(e.From), idOf(e.To)))
		}
		sort.Strings(t.cycle)
	}
	for _, id := range ids {
		if !placed[id] {
			t.unordered = append(t.unordered, id)
		}
	}
	for _, c := range t.children {
		sort.Strings(c)
	}
	return t
}

// downstream returns every transitive dependent of id, sorted.
func (t topology) downstream(id string) []string {
	seen := map[string]bool{}
	stack := append([]string(nil), t.children[id]...)
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[cur] || cur == id {
			continue
		}
		seen[cur] = true
		stack = append(stack, t.children[cur]...)
	}
	return sortedKeys(seen)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
