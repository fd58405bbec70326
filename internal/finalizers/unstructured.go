package finalizers

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// unstructuredConditions reads status.conditions of an unstructured object.
func unstructuredConditions(obj map[string]any) ([]Condition, bool, error) {
	raw, found, err := unstructured.NestedSlice(obj, "status", "conditions")
	if err != nil || !found {
		return nil, found, err
	}
	var out []Condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, conditionWords(m))
	}
	return out, true, nil
}

// conditionWords reads one entry of status.conditions as written: its type, status, reason and
// message (a field that is not a string is left empty).
func conditionWords(m map[string]any) Condition {
	c := Condition{}
	c.Type, _, _ = unstructured.NestedString(m, "type")
	c.Status, _, _ = unstructured.NestedString(m, "status")
	c.Reason, _, _ = unstructured.NestedString(m, "reason")
	c.Message, _, _ = unstructured.NestedString(m, "message")
	return c
}
