package completion

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// TypeNames returns the resource types to offer for toComplete, one per group and resource,
// sorted: the plural name where it resolves to that resource (`pods`, `persistentvolumeclaims`,
// `kustomizations`), and the fully qualified name where the plural alone is ambiguous
// (`backups.velero.io`) or the input already names a group (contains a dot). Only types that
// can be read (verb get) are offered: the plugins read every object they explain.
func TypeNames(catalog *kinds.Catalog, toComplete string) []string {
	qualifiedOnly := strings.Contains(toComplete, ".")
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] && strings.HasPrefix(s, toComplete) {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, r := range catalog.Preferred() {
		if !r.Can("get") {
			continue
		}
		if qualifiedOnly {
			add(r.QualifiedName())
			continue
		}
		if resolvesTo(catalog, r.Resource, r) {
			add(r.Resource)
		} else {
			add(r.QualifiedName())
		}
	}
	sort.Strings(out)
	return out
}

// resolvesTo reports whether the catalog resolves input to r's group and resource.
func resolvesTo(catalog *kinds.Catalog, input string, r kinds.Resource) bool {
	res, err := catalog.Resolve(input)
	want := schema.GroupResource{Group: r.Group, Resource: r.Resource}
	return err == nil && schema.GroupResource{Group: res.Resource.Group, Resource: res.Resource.Resource} == want
}
