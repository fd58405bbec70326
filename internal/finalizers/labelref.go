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
		for _, n := range kindWords(r) {
			byGroupKind[r.Group+"/"+n] = r
		}
	}
	return keyedReferences("metadata.labels", labels, namespace, func(group, stem string) (kinds.Resource, bool) {
		if group == "" {
			return kinds.Resource{}, false
		}
		res, ok := byGroupKind[group+"/"+stem]
		return res, ok
	})
}

// keyedReferences returns the references that keys written `<prefix>/<kind>` or
// `<prefix>/<kind>-name` (of the map at field, labels or annotations) make with an object's name
// as their value: lookup says which served type a key's prefix and kind word (less a `-name`
// suffix, lower-cased, dashes dropped) name, if any. A namespaced kind resolves in namespace,
// never from a cluster-scoped object; a Node is marked as one. Sorted by path.
func keyedReferences(field string, kv map[string]string, namespace string, lookup func(prefix, stem string) (kinds.Resource, bool)) []outRef {
	var out []outRef
	for key, value := range kv {
		prefix, name, ok := strings.Cut(key, "/")
		if !ok || !validName(value) {
			continue
		}
		stem := strings.ReplaceAll(strings.TrimSuffix(strings.ToLower(name), "-name"), "-", "")
		res, ok := lookup(prefix, stem)
		if !ok || (res.Namespaced && namespace == "") {
			continue
		}
		ns := namespace
		if !res.Namespaced {
			ns = ""
		}
		isNode := res.Group == "" && res.Resource == nodeResource.Resource
		out = append(out, outRef{path: field + "[" + key + "]", res: res, ns: ns, name: value, node: isNode})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// kindWords are the lower-cased kind and singular of r, the words a key may name its type by.
func kindWords(r kinds.Resource) []string {
	words := []string{strings.ToLower(r.Kind)}
	if r.Singular != "" {
		words = append(words, strings.ToLower(r.Singular))
	}
	return words
}
