package finalizers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// typedReferences walks spec (bounded) for references that say what they point at: an object
// under a field whose name ends in `Ref`/`Refs` or is `target`, holding `kind` and `name` and its API
// group, as `apiVersion` (`apps/v1`; `v1` is the core group) or `apiGroup`/`group`
// (`targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}`, an autoscaler's
// `scaleTargetRef`). Such a reference names its type itself, so it is resolved in any group
// the server serves, not only the object's own; one without its group, or of a type the server
// does not serve, names nothing here. Namespaced kinds resolve in the reference's `namespace`,
// else in namespace; from a cluster-scoped object without one they are skipped.
func typedReferences(spec map[string]any, resolve func(schema.GroupKind) (kinds.Resource, bool), namespace string) []outRef {
	var out []outRef
	var walk func(m map[string]any, path string, depth int)
	walk = func(m map[string]any, path string, depth int) {
		if depth > maxDanglingDepth {
			return
		}
		for k, v := range m {
			p := path + "." + k
			lower := strings.ToLower(k)
			refField := strings.HasSuffix(lower, "ref") || strings.HasSuffix(lower, "refs") || lower == "target"
			switch t := v.(type) {
			case map[string]any:
				if r, ok := typedReference(t, resolve, namespace); refField && ok {
					r.path = p
					out = append(out, r)
					continue
				}
				walk(t, p, depth+1)
			case []any:
				for i, e := range t {
					em, ok := e.(map[string]any)
					if !ok {
						continue
					}
					ep := fmt.Sprintf("%s[%d]", p, i)
					if r, ok := typedReference(em, resolve, namespace); refField && ok {
						r.path = ep
						out = append(out, r)
						continue
					}
					walk(em, ep, depth+1)
				}
			}
		}
	}
	walk(spec, "spec", 0)
	return out
}

// typedReference reads one object as a reference that states its kind and group.
func typedReference(m map[string]any, resolve func(schema.GroupKind) (kinds.Resource, bool), namespace string) (outRef, bool) {
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	if kind == "" || !validName(name) {
		return outRef{}, false
	}
	group, stated := "", false
	if av, ok := m["apiVersion"].(string); ok && av != "" {
		gv, err := schema.ParseGroupVersion(av)
		if err != nil {
			return outRef{}, false
		}
		group, stated = gv.Group, true
	}
	for _, key := range []string{"apiGroup", "group"} {
		if g, ok := m[key].(string); ok && !stated {
			group, stated = g, true
		}
	}
	if !stated {
		return outRef{}, false
	}
	res, ok := resolve(schema.GroupKind{Group: group, Kind: kind})
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
