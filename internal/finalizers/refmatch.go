package finalizers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// refTarget is the stuck object as a reference field would name it.
type refTarget struct {
	group, kind, plural string
	namespace, name     string
	uid                 types.UID
}

// refSuffixes end the names of fields that hold a reference by name: `providerConfigRef`,
// `storageClassName`, `blockDeviceRefs`.
var refSuffixes = []string{"Refs", "Ref", "Names", "Name"}

// minStem is the shortest field stem (`class` of `className`) compared with a kind: shorter
// ones (`pv`, `vm`) say too little to tie a field to one kind.
const minStem = 4

// refStem returns the part of a field name before its reference suffix, and whether the field
// is shaped like a reference: it ends in Ref(s) or Name(s) or starts with dataSource. Any other
// field's stem is its whole name, which counts only when it names the kind (`dataStore` of
// DataStore).
func refStem(field string) (string, bool) {
	if strings.HasPrefix(field, "dataSource") {
		return "", true
	}
	for _, s := range refSuffixes {
		if strings.HasSuffix(field, s) && len(field) > len(s) {
			return strings.TrimSuffix(field, s), true
		}
	}
	return field, false
}

// stemNamesKind reports whether a field's stem names the kind: the kind ends with it, case
// aside (`nodeClass` of EC2NodeClass, `providerConfig` of ProviderConfig, `storageClass`).
// A plural stem names the kind too (`flavors` of ResourceFlavor: a list of them).
func stemNamesKind(stem, kind string) bool {
	k, st := strings.ToLower(kind), strings.ToLower(stem)
	for _, c := range []string{st, strings.TrimSuffix(st, "s"), strings.TrimSuffix(st, "es")} {
		if len(c) >= minStem && strings.HasSuffix(k, c) {
			return true
		}
	}
	return false
}

// refMatch is one place in an object that refers to the target.
type refMatch struct {
	path string
}

// matchRefs walks v (an object's spec, as decoded JSON) and returns every field that refers to
// t: a reference-shaped field whose stem names t's kind and whose string value is t's name; a
// reference-shaped field holding an object (or a list of them) whose name is t's name and whose
// kind, group and namespace, where given, are t's (without a kind, the field's stem or a `type`
// equal to the kind must name t's kind); any `uid` equal to t's UID. refNS is the namespace of the referring object: a
// reference without a namespace points into it.
func matchRefs(v any, path string, t refTarget, refNS string) []refMatch {
	var out []refMatch
	walkRefs(v, path, "", t, refNS, 0, &out)
	return out
}

const maxRefDepth = 10

func walkRefs(v any, path, field string, t refTarget, refNS string, depth int, out *[]refMatch) {
	if depth > maxRefDepth {
		return
	}
	stem, _ := refStem(field)
	switch val := v.(type) {
	case string:
		if val == t.name && stemNamesKind(stem, t.kind) && sameNamespace(t, refNS, "") {
			*out = append(*out, refMatch{path: path})
		}
	case []any:
		for i, item := range val {
			walkRefs(item, fmt.Sprintf("%s[%d]", path, i), field, t, refNS, depth+1, out)
		}
	case map[string]any:
		if field != "" && objectRefTo(val, stem, t, refNS) {
			*out = append(*out, refMatch{path: path})
			return
		}
		if uid, ok := val["uid"].(string); ok && t.uid != "" && types.UID(uid) == t.uid {
			*out = append(*out, refMatch{path: path + ".uid"})
			return
		}
		keys := slices.Sorted(maps.Keys(val))
		for _, k := range keys {
			walkRefs(val[k], path+"."+k, k, t, refNS, depth+1, out)
		}
	}
}

// objectRefTo applies the rule to a reference held as an object: {kind, apiGroup|group|
// apiVersion, namespace, name}; without a kind, a `type` equal to the kind stands for it
// (typeNamesKind).
func objectRefTo(m map[string]any, stem string, t refTarget, refNS string) bool {
	if name, _ := m["name"].(string); name != t.name {
		return false
	}
	if kind, ok := m["kind"].(string); ok {
		if kind != t.kind {
			return false
		}
	} else if !stemNamesKind(stem, t.kind) && !typeNamesKind(m, t.kind) {
		return false
	}
	for _, k := range []string{"apiGroup", "group"} {
		if g, ok := m[k].(string); ok && g != t.group {
			return false
		}
	}
	if av, ok := m["apiVersion"].(string); ok {
		if gv, err := schema.ParseGroupVersion(av); err == nil && gv.Group != t.group {
			return false
		}
	}
	ns, _ := m["namespace"].(string)
	return sameNamespace(t, refNS, ns)
}

// sameNamespace: a cluster-scoped target is referred to from anywhere; a namespaced one by a
// reference that names its namespace, or from an object in that namespace.
func sameNamespace(t refTarget, refNS, explicit string) bool {
	if t.namespace == "" {
		return true
	}
	if explicit != "" {
		return explicit == t.namespace
	}
	return refNS == t.namespace
}

// schemaPointsTo applies the rule to a CRD's schema: somewhere under spec, a reference-shaped
// property whose stem names the kind, whose description names the kind or its plural, or whose
// own `kind` (or `group`/`apiGroup`) property is fixed by enum or default to the target's. It
// returns the property's path.
func schemaPointsTo(s *apiextensionsv1.JSONSchemaProps, t refTarget) (string, bool) {
	if s == nil {
		return "", false
	}
	spec, ok := s.Properties["spec"]
	if !ok {
		return "", false
	}
	return schemaWalk(&spec, ".spec", "", t, 0)
}

func schemaWalk(s *apiextensionsv1.JSONSchemaProps, path, field string, t refTarget, depth int) (string, bool) {
	if depth > maxRefDepth {
		return "", false
	}
	if stem, shaped := refStem(field); field != "" && (stemNamesKind(stem, t.kind) || shaped && propertyNamesKind(s, t)) {
		return path, true
	}
	if s.Items != nil && s.Items.Schema != nil {
		if p, ok := schemaWalk(s.Items.Schema, path+"[]", field, t, depth+1); ok {
			return p, true
		}
	}
	keys := slices.Sorted(maps.Keys(s.Properties))
	for _, k := range keys {
		p := s.Properties[k]
		if got, ok := schemaWalk(&p, path+"."+k, k, t, depth+1); ok {
			return got, true
		}
	}
	return "", false
}

// propertyNamesKind reports a reference property whose description names the kind or its
// plural, or whose own kind (or group) property is fixed to the target's.
func propertyNamesKind(s *apiextensionsv1.JSONSchemaProps, t refTarget) bool {
	if d := s.Description; d != "" && (containsWord(d, t.kind) || (t.plural != "" && containsWord(d, t.plural))) {
		return true
	}
	if k, ok := s.Properties["kind"]; ok && fixedTo(k, t.kind) {
		return true
	}
	for _, g := range []string{"group", "apiGroup"} {
		if p, ok := s.Properties[g]; ok && t.group != "" && fixedTo(p, t.group) {
			return true
		}
	}
	return false
}

// fixedTo reports a property whose enum lists want or whose default is want.
func fixedTo(p apiextensionsv1.JSONSchemaProps, want string) bool {
	quoted := fmt.Sprintf("%q", want)
	for _, e := range p.Enum {
		if string(e.Raw) == quoted {
			return true
		}
	}
	return p.Default != nil && string(p.Default.Raw) == quoted
}

// containsWord reports w in s as a whole word (letters and digits around it do not count).
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isWordByte(s[j-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
