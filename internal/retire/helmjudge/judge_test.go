package helmjudge

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// obj is an object of apiVersion and kind named ns/name, with annotations ann.
func obj(apiVersion, kind, ns, name string, ann map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
	u.SetNamespace(ns)
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

// helmRelease is a HelmRelease x/name of chart app-template whose spec.values are the YAML given.
func helmRelease(t *testing.T, name, values string) *unstructured.Unstructured {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatal(err)
	}
	u := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "x", name, nil)
	_ = unstructured.SetNestedField(u.Object, map[string]any{"chart": "app-template"}, "spec", "chart", "spec")
	if v != nil {
		_ = unstructured.SetNestedMap(u.Object, v, "spec", "values")
	}
	return u
}

// kindSet is a Kinds of exact GroupKinds.
type kindSet []string

func (k kindSet) Has(ref inventory.Ref) bool { return slices.Contains(k, ref.GroupKind()) }

// stateful are the persistent kinds these tests meet, as retire's defaults name them.
func stateful() Kinds {
	return kindSet{"PersistentVolumeClaim", "StatefulSet.apps", "CustomResourceDefinition.apiextensions.k8s.io"}
}
