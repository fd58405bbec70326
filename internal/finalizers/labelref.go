package finalizers

import (
	"sort"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
)

// labelReferences returns the references the object's labels make to objects of the other API
// groups the cluster serves: a label whose key is `<group>/<kind>` or `<group>/<kind>-name`,
// whose prefix is a served API group, whose name (less a `-name` suffix, dashes dropped) is the
// lower-cased kind or singular of one of that group's types, and whose value is an object name,
// names that object: controllers that place or schedule an object through another product's
// object record it this way (`cluster.open-cluster-management.io/placement: http-gateway`,
// `cluster.x-k8s.io/cluster-name: prod`). A namespaced kind resolves in the object's namespace
// (never from a cluster-scoped object). The object's own group is left to its spec (its
// controller's own labels are its bookkeeping), and a key whose prefix no served group has
// (`app.kubernetes.io/name`) names nothing.
func labelReferences(labels map[string]string, served []kinds.Resource, ownGroup, namespace string) []outRef {
	byGroupKind := map[string]kinds.Resource{}
	for _, r := range served {
		if r.Group == "" || r.Group == ownGroup || strings.Contains(r.Resource, "/") {
			continue
		}
		byGroupKind[r.Group+"/"+strings.ToLower(r.Kind)] = r
		if r.Singular != "" {
			byGroupKind[r.Group+"/"+strings.ToLower(r.Singular)] = r
		}
	}
	var out []outRef
	for key, value := range labels {
		group, name, ok := strings.Cut(key, "/")
		if !ok || group == "" || !validName(value) {
			continue
		}
		stem := strings.ReplaceAll(strings.TrimSuffix(strings.ToLower(name), "-name"), "-", "")
		res, ok := byGroupKind[group+"/"+stem]
		if !ok || (res.Namespaced && namespace == "") {
			continue
		}
		ns := namespace
		if !res.Namespaced {
			ns = ""
		}
		out = append(out, outRef{path: "metadata.labels[" + key + "]", res: res, ns: ns, name: value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
