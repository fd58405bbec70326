package finalizers

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// typedReferences walks spec (bounded) for target references that say what they point at: an
// object under a field that names the object's target (targetField), holding `kind` and `name`
// and its API group, as `apiVersion` (`apps/v1`; `v1` is the core group) or `apiGroup`/`group`
// (`targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}`, an autoscaler's
// `scaleTargetRef`). Such a reference names its type itself, so it is resolved in any group
// the server serves, not only the object's own; one without its group, or of a type the server
// does not serve, names nothing here. Namespaced kinds resolve in the reference's `namespace`,
// else in namespace; from a cluster-scoped object without one they are skipped.
func typedReferences(spec map[string]any, resolve func(schema.GroupKind) (kinds.Resource, bool), namespace string) []outRef {
	var out []outRef
	walkSpecFields(spec, func(key, path string, v any, _ bool) bool {
		lower := strings.ToLower(key)
		m, isMap := v.(map[string]any)
		if !isMap || !targetField(lower) {
			return false
		}
		r, ok := typedReference(m, resolve, namespace)
		if ok {
			r.path = path
			out = append(out, r)
		}
		return ok
	})
	return out
}

// targetField reports a field (lower-cased) that names the object's target: `target`,
// `targets`, or a `…Ref`/`…Refs` field whose name says target (`targetRef`, `scaleTargetRef`,
// `targetRefs`). What a controller acts on, and must undo or release when the object goes, is
// its target; a reference it only reads from (`parametersRef`, `configRef`, `secretRef`, a
// class) says nothing about what its finalizer waits for.
func targetField(lower string) bool {
	if lower == "target" || lower == "targets" {
		return true
	}
	return strings.Contains(lower, "target") && (strings.HasSuffix(lower, "ref") || strings.HasSuffix(lower, "refs"))
}

// typedReference reads one object as a reference that states its kind and group.
func typedReference(m map[string]any, resolve func(schema.GroupKind) (kinds.Resource, bool), namespace string) (outRef, bool) {
	gk, name, ok := statedType(m)
	if !ok {
		return outRef{}, false
	}
	res, ok := resolve(gk)
	if !ok {
		return outRef{}, false
	}
	ns := namespace
	if s, ok := m["namespace"].(string); ok && s != "" {
		ns = s
	}
	if !res.Namespaced {
		ns = ""
	} else if ns == "" {
		return outRef{}, false
	}
	return outRef{res: res, ns: ns, name: name}, true
}

// withTypedReferences adds to refs the typed references of spec that refs does not already
// hold (by field path), sorted by path as refs are.
func withTypedReferences(refs []outRef, typed []outRef) []outRef {
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r.path] = true
	}
	for _, r := range typed {
		if !seen[r.path] {
			refs = append(refs, r)
			seen[r.path] = true
		}
	}
	sortByPath(refs)
	return refs
}
