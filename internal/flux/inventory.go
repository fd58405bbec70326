package flux

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/object"
)

// ParseInventoryID reads one entry id of a Kustomization's status.inventory,
// `<namespace>_<name>_<group>_<kind>`, with sigs.k8s.io/cli-utils' object package.
//
// Flux writes its inventories with its fork of that package (github.com/fluxcd/cli-utils),
// whose parser differs in one case: a name that still holds a `_` once the `__` standing for
// a ":" is decoded (a ClusterRole named `system:kube_dns` is stored as
// `_system__kube_dns_rbac.authorization.k8s.io_ClusterRole`). The sigs parser rejects such an
// id as having too many fields; Flux's accepts it, taking the namespace up to the first `_`,
// the kind after the last and the group before that. That id names an object Flux applied and
// will prune, so it is read here the way Flux reads it, not dropped.
func ParseInventoryID(id string) (object.ObjMetadata, error) {
	m, err := object.ParseObjMetadata(id)
	if err == nil {
		return m, nil
	}
	ns, rest, ok := strings.Cut(id, "_")
	kindAt := strings.LastIndex(rest, "_")
	if !ok || kindAt < 0 {
		return object.NilObjMetadata, fmt.Errorf("inventory id %q: %w", id, err)
	}
	groupAt := strings.LastIndex(rest[:kindAt], "_")
	if groupAt < 0 {
		return object.NilObjMetadata, fmt.Errorf("inventory id %q: %w", id, err)
	}
	return object.ObjMetadata{
		Namespace: ns,
		Name:      strings.ReplaceAll(rest[:groupAt], "__", ":"),
		GroupKind: schema.GroupKind{Group: rest[groupAt+1 : kindAt], Kind: rest[kindAt+1:]},
	}, nil
}
