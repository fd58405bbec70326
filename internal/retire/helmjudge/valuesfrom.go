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
		if bo == nil || co == nil || !reflect.DeepEqual(content(bo), content(co)) {
			out = append(out, "the values in its valuesFrom "+kind+" "+c.GetNamespace()+"/"+name)
		}
	}
	return out
}

// content is what a ConfigMap or Secret holds.
func content(o *unstructured.Unstructured) []any {
	return []any{o.Object["data"], o.Object["binaryData"], o.Object["stringData"]}
}
