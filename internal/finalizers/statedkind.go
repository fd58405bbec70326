package finalizers

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// forStatedKind resolves the type a reference states (its `kind` and group) as the API server
// names its types: by the kind, and, when no type of the group has that kind, by a name the
// server gives the same type — its resource (the plural, `deployments`), its singular
// (`deployment`), or the kind in another case. Controllers that read such a reference map it
// through the server's REST mapping, which accepts every one of these, so a reference a product
// writes as `kind: deployments` names the Deployment as surely as `kind: Deployment`. Short
// names (`deploy`) are kubectl's and are not taken. Within one group the names are unique, so no
// guess is made; a name no type of the group has resolves to nothing.
func forStatedKind(c *kinds.Catalog) func(schema.GroupKind) (kinds.Resource, bool) {
	return func(gk schema.GroupKind) (kinds.Resource, bool) {
		if r, ok := c.ForGroupKind(gk); ok {
			return r, true
		}
		return byTypeName(c.Preferred(), gk)
	}
}

// byTypeName finds the type of gk.Group whose kind (any case), resource or singular name is
// gk.Kind; subresources are never a stated kind.
func byTypeName(rs []kinds.Resource, gk schema.GroupKind) (kinds.Resource, bool) {
	name := strings.ToLower(gk.Kind)
	for _, r := range rs {
		if r.Group != gk.Group || strings.Contains(r.Resource, "/") {
			continue
		}
		if strings.ToLower(r.Kind) == name || r.Resource == name || (r.Singular != "" && r.Singular == name) {
			return r, true
		}
	}
	return kinds.Resource{}, false
}
