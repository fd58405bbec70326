package finalizers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// maxOwnerSpecDepth bounds how deep the spec is walked for the gone owner's name.
const maxOwnerSpecDepth = 6

// ownerSpecPath is the spec field that names the gone owner ref by name, a field whose stem
// (less a Ref/Name suffix) ends the owner's kind (`spec.clusterName: demo` for the gone
// HostedCluster demo); "" when no field does. An object that reconciles directly may still need
// its owner to finish: when its own spec names that owner, its cleanup runs against it
// (a node pool is torn down through its cluster), and the gone owner holds the finalizer
// whatever RBAC says of the remover (markOwnersInSpec, withoutPassingOwner).
func ownerSpecPath(spec map[string]any, owner ObjectRef) string {
	kind := strings.ToLower(owner.Kind)
	if kind == "" || owner.Name == "" {
		return ""
	}
	var found []string
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		if depth > maxOwnerSpecDepth || len(found) > 0 {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(c, path+"."+k, depth+1)
			}
		case []any:
			for i, c := range t {
				walk(c, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		case string:
			stem := looseStem(path)
			if t == owner.Name && len(stem) >= 4 && strings.HasSuffix(kind, stem) {
				found = append(found, path)
			}
		}
	}
	keys := slices.Sorted(maps.Keys(spec))
	for _, k := range keys {
		walk(spec[k], "spec."+k, 1)
	}
	if len(found) == 0 {
		return ""
	}
	return found[0]
}

// markOwnersInSpec marks each gone owner of found that the spec names (ownerSpecPath) or
// addresses (ownerAddressPath), and says so in its reason.
func markOwnersInSpec(found []dangling, spec map[string]any) {
	for i := range found {
		d := &found[i]
		if !d.owner {
			continue
		}
		p := ownerSpecPath(spec, d.ref)
		if p == "" {
			p = ownerAddressPath(spec, d.ref)
		}
		if p != "" {
			d.inSpec = true
			d.path = p
			d.reason = fmt.Sprintf("its owner (metadata.ownerReferences) %s, which %s names too, no longer exists: the object's own cleanup runs against it and never completes", d.ref.String(), p)
		}
	}
}
