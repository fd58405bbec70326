package finalizers

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
)

// withLooseReferences adds to refs the spec fields that name no kind of the group exactly but
// whose stem ends exactly one kind's name (`clusterRef` in a group whose one cluster kind is
// TemporalCluster), marked loose, sorted by path as refs are. A field is matched exactly or
// loosely, never both; with two kinds ending in the stem, or a stem too short to say, nothing
// is added. The stuck object's own group is the only one searched: a field of a group's
// object naming the group's one kind of that sort is how operators write references to their
// own objects.
func withLooseReferences(refs []outRef, spec map[string]any, byKind map[string]kinds.Resource, namespace string) []outRef {
	if len(byKind) == 0 {
		return refs
	}
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r.path] = true
	}
	looseOnly := func(base string, byKind map[string]kinds.Resource) (kinds.Resource, bool) {
		if _, exact := byKind[base]; exact {
			return kinds.Resource{}, false
		}
		return kindFor(base, byKind)
	}
	for _, r := range walkReferences(spec, byKind, namespace, looseOnly) {
		// Only a field that calls itself a reference (`clusterRef`) is matched loosely: a bare
		// `role` or `cluster` is as often a name in another system (a Vault role) as an object.
		if seen[r.path] || r.node || !saysReference(r.path) {
			continue
		}
		r.loose = looseStem(r.path)
		refs = append(refs, r)
		seen[r.path] = true
	}
	sortByPath(refs)
	return refs
}

// lastField is the last field of path, lower-cased, less any list index
// (`spec.clusterRefs[0]` → clusterrefs).
func lastField(path string) string {
	last := path[strings.LastIndex(path, ".")+1:]
	if i := strings.Index(last, "["); i >= 0 {
		last = last[:i]
	}
	return strings.ToLower(last)
}

// saysReference reports whether the last field of path ends in Ref or Refs (`clusterRef`).
func saysReference(path string) bool {
	last := lastField(path)
	return strings.HasSuffix(last, "ref") || strings.HasSuffix(last, "refs")
}

// looseStem is the stem of the last field of path, lower-cased, less a Ref/Name suffix and any
// list index (`spec.clusterRef` → cluster).
func looseStem(path string) string {
	last := lastField(path)
	for _, s := range []string{"ref", "name"} {
		if strings.HasSuffix(last, s) && len(last) > len(s) {
			return strings.TrimSuffix(last, s)
		}
	}
	return last
}

// looseDangling words a missing object a loosely matched field names: the match is inferred
// from the field's name, and the reason says so.
func looseDangling(r outRef, ref ObjectRef) dangling {
	return dangling{ref: ref, path: r.path, restorable: true, reason: fmt.Sprintf("%s names %s, which does not exist (the field's stem %q is read as the group's one kind ending in it, %s): the cleanup its controller runs against the referenced %s never completes", r.path, ref.String(), r.loose, r.res.Kind, r.res.Kind)}
}
