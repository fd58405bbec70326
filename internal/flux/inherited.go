package flux

import "slices"

// InheritedDep is a Kustomization a node waits for although its own dependsOn does not name
// it: the object that creates the node waits for it first. A ResourceSet is not reconciled
// (its objects are not created) until its spec.dependsOn entries with ready: true are Ready,
// and a Kustomization does not apply its path until its dependsOn are Ready, so what either
// creates waits as long.
type InheritedDep struct {
	// ID is the Kustomization waited for (namespace/name).
	ID string `json:"id"`
	// Via is the object whose own dependsOn names it: "ResourceSet namespace/name" or
	// "Kustomization namespace/name", the creator of the node or one above it.
	Via string `json:"via"`
}

// waits lists what n waits for: its dependsOn, then the dependencies it inherits, each once.
func (n *Node) waits() []string {
	if len(n.Inherited) == 0 {
		return n.DependsOn
	}
	out := append([]string(nil), n.DependsOn...)
	for _, d := range n.Inherited {
		if !slices.Contains(out, d.ID) {
			out = append(out, d.ID)
		}
	}
	return out
}
