package finalizers

import "strings"

// typeNamesKind applies the rule for a reference held as an object whose kind is written under
// `type` rather than `kind` ({type: Role, name: r1, namespace: ns}, the target of an attachment):
// when the object has no `kind` field, a `type` string equal to the target's kind (case aside)
// names the kind as `kind` would, whatever the field holding the object is called. A `type` that
// says something else is no evidence either way (`type` means many things: a Service's
// ClusterIP, a condition's Ready), so it neither matches nor rules the reference out.
func typeNamesKind(m map[string]any, kind string) bool {
	if _, ok := m["kind"]; ok {
		return false
	}
	typ, ok := m["type"].(string)
	return ok && kind != "" && strings.EqualFold(typ, kind)
}
