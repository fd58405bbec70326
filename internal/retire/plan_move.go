package retire

import (
	"fmt"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/resourceset"
)

// movePlan is the plan of an unsafe move: the object leaves one applier's inventory for
// another's, so it is to be adopted, not deleted. Protect it where it is (the old applier then
// drops it from its inventory and leaves it, whichever reconciles first), move its manifest
// keeping the protection, wait until the new applier lists it, then remove the protection.
// Nothing is drained and nothing is deleted by hand. For a moved Flux Kustomization the
// protection keeps its finalizer from running, so what it applied stays too
// (spec.deletionPolicy: Orphan in its manifest would keep that as well, but the Kustomization
// itself would be deleted and recreated).
func (p Planner) movePlan(r *Removal) []Stage {
	from, to := ownerOf(r.Kustomization), ownerOf(r.MovedTo)
	protect := p.protect(r)
	if r.Object.GroupKind() == fluxKustomizationGroupKind {
		protect.Do = append(protect.Do, fmt.Sprintf("the protection keeps %s from deleting %s, so its finalizer does not delete what it applied", from, r.Object))
	}
	annotation, jsonpath := PruneAnnotation, `jsonpath={.metadata.annotations.kustomize\.toolkit\.fluxcd\.io/prune}`
	if to.resourceSet {
		annotation, jsonpath = resourceset.PruneAnnotation, `jsonpath={.metadata.annotations.fluxcd\.controlplane\.io/prune}`
	}
	inventory := p.kubectl(to.namespace, "get", to.resource(), to.name, "-o", "jsonpath={.status.inventory.entries[*].id}") + " | " + cluster.Quote("tr", " ", `\n`) + " | " + cluster.Quote("grep", "-Fx", r.ID)
	move := Stage{
		Number: 2, Title: "move",
		Do: []string{
			fmt.Sprintf("in git, move the manifest of %s%s to %s's path with the protection kept (and carry the same annotation, %s: %s, on it there), merge", r.Object, inFile(r.File), to, annotation, Disabled),
			fmt.Sprintf("%s drops %s from its inventory and leaves it in place; %s applies it and adopts it", from, r.ID, to),
			fmt.Sprintf("wait until %s has applied the merged revision", to),
		},
		Check:  inventory,
		Expect: r.ID + " (the new applier lists the object)",
	}
	unprotect := Stage{
		Number: 3, Title: "remove the protection",
		Do: []string{
			fmt.Sprintf("in git, drop the annotation %s: %s from %s in %s's path, merge", annotation, Disabled, r.Object, to),
			"never delete the object by hand: it is the one the new applier now manages",
		},
		Check:  p.on(r).kubectl(r.Object.Namespace, "get", r.Object.Resource(), r.Object.Name, "-o", jsonpath),
		Expect: "no output (the protection is gone, and the object is still there)",
	}
	return []Stage{protect, move, unprotect}
}
