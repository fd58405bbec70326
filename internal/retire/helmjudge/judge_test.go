package helmjudge

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// kindSet is a Kinds of exact GroupKinds.
type kindSet []string

func (k kindSet) Has(ref inventory.Ref) bool { return slices.Contains(k, ref.GroupKind()) }

// stateful are the persistent kinds these tests meet, as retire's defaults name them.
func stateful() Kinds {
	return kindSet{"PersistentVolumeClaim", "StatefulSet.apps", "CustomResourceDefinition.apiextensions.k8s.io"}
}
