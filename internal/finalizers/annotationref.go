package finalizers

import (
	"slices"
	"sort"
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
		names := []string{strings.ToLower(r.Kind)}
		if r.Singular != "" {
			names = append(names, strings.ToLower(r.Singular))
		}
		for _, n := range names {
			switch {
			case r.Group == "":
				core[n] = r
			default:
				byGroupKind[r.Group+"/"+n] = r
			}
		}
	}
	var out []outRef
	for key, value := range annotations {
		prefix, name, ok := strings.Cut(key, "/")
		if !ok || !strings.Contains(prefix, ".") || !validName(value) {
			continue
		}
		stem := strings.ReplaceAll(strings.TrimSuffix(strings.ToLower(name), "-name"), "-", "")
		// A served group's own kind of that name is the one meant (`<group>/service` of a group
		// serving a Service kind is not the core Service); the object's own group's is its
		// controller's bookkeeping, left to its spec.
		res, ok := byGroupKind[prefix+"/"+stem]
		switch {
		case ok && res.Group == ownGroup:
			continue
		case !ok:
			res, ok = core[stem]
		}
		if !ok || (res.Namespaced && namespace == "") {
			continue
		}
		ns := namespace
		if !res.Namespaced {
			ns = ""
		}
		isNode := res.Group == "" && res.Resource == nodeResource.Resource
		out = append(out, outRef{path: "metadata.annotations[" + key + "]", res: res, ns: ns, name: value, node: isNode})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
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
