package helmjudge

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// valuesObjects are the ConfigMaps and Secrets of objs by "Kind/namespace/name": what a
// HelmRelease's valuesFrom may name.
func valuesObjects(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if o.GetAPIVersion() == "v1" && (o.GetKind() == "ConfigMap" || o.GetKind() == "Secret") {
			out[o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()] = o
		}
	}
	return out
}

// valuesFromChanged names each ConfigMap or Secret the candidate's valuesFrom reads whose
// content differs from the base's object of the same name, or that one side does not declare:
// the values helm-controller composes change although the HelmRelease's spec does not (a
// configMapGenerator without a name hash, a values file kept beside the release). Only
// equality is looked at, never printed; a reference to an object neither side declares is
// not named (helm.ValuesSeen already says it is not read).
func valuesFromChanged(b, c *unstructured.Unstructured, objs [2]map[string]*unstructured.Unstructured) []string {
	from, _, _ := unstructured.NestedSlice(c.Object, "spec", "valuesFrom")
	var out []string
	for _, f := range from {
		m, _ := f.(map[string]any)
		kind, _ := m["kind"].(string)
		name, _ := m["name"].(string)
		bk := kind + "/" + b.GetNamespace() + "/" + name
		ck := kind + "/" + c.GetNamespace() + "/" + name
		bo, co := objs[0][bk], objs[1][ck]
		if bo == nil && co == nil {
			continue
		}
		if bo == nil || co == nil || !reflect.DeepEqual(valuesRead(bo, m), valuesRead(co, m)) {
			out = append(out, "the values in its valuesFrom "+kind+" "+c.GetNamespace()+"/"+name)
		}
	}
	return out
}

// defaultValuesKey is the key helm-controller reads a valuesFrom object's values from when the
// reference names none (ValuesReference.GetValuesKey).
const defaultValuesKey = "values.yaml"

// valuesRead is what helm-controller reads of the ConfigMap or Secret o through the valuesFrom
// reference ref: the entry under its valuesKey (values.yaml when unset), nothing else of the
// object. Many releases may read one shared ConfigMap, each its own key
// (ionfury/homelab's cluster-values, one key per release from a configMapGenerator): a change
// to one key changes what one release reads. The entry is taken from data, binaryData and
// stringData alike, so that no change to it passes unseen.
func valuesRead(o *unstructured.Unstructured, ref map[string]any) []any {
	key, _ := ref["valuesKey"].(string)
	if key == "" {
		key = defaultValuesKey
	}
	out := make([]any, 0, 3)
	for _, field := range []string{"data", "binaryData", "stringData"} {
		m, _ := o.Object[field].(map[string]any)
		out = append(out, m[key])
	}
	return out
}
