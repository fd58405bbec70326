package helmrender

import (
	"encoding/base64"
	"fmt"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// defaultValuesKey is the key valuesFrom reads when it names none.
const defaultValuesKey = "values.yaml"

// composeValues merges a HelmRelease's values as helm-controller does (fluxcd/pkg/chartutil
// ChartValuesFromReferences): each spec.valuesFrom in order, a whole document merged deeply or,
// with targetPath, one value set at that path with Helm's --set parser (quoted: as a string);
// then spec.values on top. A missing object or key is skipped when the reference is optional,
// else it fails naming the reference. The ConfigMaps and Secrets are those the builds declare
// in the HelmRelease's namespace: one that is not declared, or a Secret encrypted with SOPS, is
// an error, never a guess. secret reports whether any value came from a Secret.
func composeValues(hr *helmv2.HelmRelease, objs []*unstructured.Unstructured) (vals map[string]any, secret bool, err error) {
	vals = map[string]any{}
	for _, ref := range hr.Spec.ValuesFrom {
		data, found, err := valuesData(hr.Namespace, ref, objs)
		if err != nil {
			return nil, secret, err
		}
		if !found {
			continue
		}
		secret = secret || ref.Kind == "Secret"
		if ref.TargetPath != "" {
			if err := setPath(vals, ref.TargetPath, data); err != nil {
				return nil, secret, fmt.Errorf("valuesFrom %s %s/%s: targetPath %q: %w", ref.Kind, hr.Namespace, ref.Name, ref.TargetPath, err)
			}
			continue
		}
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
			return nil, secret, fmt.Errorf("valuesFrom %s %s/%s key %s: %w", ref.Kind, hr.Namespace, ref.Name, key(ref), redact(err, ref.Kind))
		}
		vals = loader.MergeMaps(vals, doc)
	}
	if hr.Spec.Values != nil && len(hr.Spec.Values.Raw) > 0 {
		var inline map[string]any
		if err := yaml.Unmarshal(hr.Spec.Values.Raw, &inline); err != nil {
			return nil, secret, fmt.Errorf("spec.values: %w", err)
		}
		vals = loader.MergeMaps(vals, inline)
	}
	return vals, secret, nil
}

func key(ref helmv2.ValuesReference) string {
	if ref.ValuesKey != "" {
		return ref.ValuesKey
	}
	return defaultValuesKey
}

// redact drops the text of a parse error of a Secret's value, which may quote it.
func redact(err error, kind string) error {
	if kind == "Secret" {
		return fmt.Errorf("the value does not parse as YAML (its text is not shown)")
	}
	return err
}

// setPath is `--set path=value` (ParseInto), or ParseIntoString for a quoted value.
func setPath(vals map[string]any, path, value string) error {
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		return strvals.ParseIntoString(path+"="+strings.Trim(value, `"'`), vals)
	}
	return strvals.ParseInto(path+"="+value, vals)
}

// valuesData reads one valuesFrom reference from the declared objects.
func valuesData(ns string, ref helmv2.ValuesReference, objs []*unstructured.Unstructured) (string, bool, error) {
	name := fmt.Sprintf("valuesFrom %s %s/%s", ref.Kind, ns, ref.Name)
	var obj *unstructured.Unstructured
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group == "" && gvk.Kind == ref.Kind && o.GetName() == ref.Name && (o.GetNamespace() == ns || o.GetNamespace() == "") {
			obj = o
			if o.GetNamespace() == ns {
				break
			}
		}
	}
	if obj == nil {
		if ref.Optional {
			return "", false, nil
		}
		return "", false, fmt.Errorf("%s: no tier that built declares it (a Secret made by another controller, e.g. ExternalSecrets, is not seen)", name)
	}
	k := key(ref)
	switch ref.Kind {
	case "ConfigMap":
		if v, ok, _ := unstructured.NestedString(obj.Object, "data", k); ok {
			return v, true, nil
		}
		if v, ok, _ := unstructured.NestedString(obj.Object, "binaryData", k); ok {
			b, err := base64.StdEncoding.DecodeString(v)
			return string(b), err == nil, err
		}
	case "Secret":
		if _, sops := obj.Object["sops"]; sops {
			return "", false, fmt.Errorf("%s: encrypted with SOPS, which is never decrypted here", name)
		}
		if v, ok, _ := unstructured.NestedString(obj.Object, "stringData", k); ok {
			return v, true, nil
		}
		if v, ok, _ := unstructured.NestedString(obj.Object, "data", k); ok {
			b, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return "", false, fmt.Errorf("%s key %s: not base64", name, k)
			}
			return string(b), true, nil
		}
	default:
		return "", false, fmt.Errorf("%s: only ConfigMap and Secret are read", name)
	}
	if ref.Optional {
		return "", false, nil
	}
	return "", false, fmt.Errorf("%s: has no key %s", name, k)
}
