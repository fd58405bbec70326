package finalizers

import (
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
)

// annotationReferences returns the references the object's annotations make to other objects:
// an annotation whose key is `<prefix>/<kind>` or `<prefix>/<kind>-name`, whose value is an
// object name, names that object when either the prefix is a served API group other than the
// object's own and the name (less a `-name` suffix, dashes dropped) is the lower-cased kind or
// singular of one of that group's types, or the prefix is any qualified one (it has a dot) whose
// served group has no kind of that name and the name is a core kind (`<prefix>/node-name: worker-2` names nodes/worker-2). Controllers that
// act on another object through the one they reconcile record the target this way, often with
// the object named after it, which corroborates but is never read as a reference alone. A
// namespaced kind resolves in the object's namespace (never from a cluster-scoped object); a
// kind that cannot be read (no `get`) names nothing; a Node is marked as one (its absence is
// permanent: nothing can create the same node again).
func annotationReferences(annotations map[string]string, served []kinds.Resource, ownGroup, namespace string) []outRef {
	byGroupKind := map[string]kinds.Resource{}
	core := map[string]kinds.Resource{}
	for _, r := range served {
		if strings.Contains(r.Resource, "/") || (len(r.Verbs) > 0 && !slices.Contains(r.Verbs, "get")) {
			continue
		}
		for _, n := range kindWords(r) {
			switch {
			case r.Group == "":
				core[n] = r
			default:
				byGroupKind[r.Group+"/"+n] = r
			}
		}
	}
	return keyedReferences("metadata.annotations", annotations, namespace, func(prefix, stem string) (kinds.Resource, bool) {
		if !strings.Contains(prefix, ".") {
			return kinds.Resource{}, false
		}
		if res, ok := byGroupKind[prefix+"/"+stem]; ok {
			// The object's own group's kind is meant, and left to its spec.
			return res, res.Group != ownGroup
		}
		res, ok := core[stem]
		return res, ok
	})
}

// annotatedNodeDangling words a gone Node that an annotation names: the object's remover acts
// on that node (fences, drains, untaints, cleans it), which it can never finish now, so the stall
// is permanent and the strip, with what it leaves, is the way out. An object named after the
// node corroborates the reference.
func annotatedNodeDangling(r outRef, ref ObjectRef, ownName string) dangling {
	d := dangling{ref: ref, path: r.path, reason: "the object's " + r.path + " names " + ref.String() + ", which does not exist: what its remover does to or on that node can never be done, so it never finishes and never removes the finalizer"}
	if ownName == r.name {
		d.context = append(d.context, "the object is named after it too ("+ownName+")")
	}
	return d
}
