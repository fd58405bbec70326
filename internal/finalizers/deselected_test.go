package finalizers

import (
	"context"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestOwnerNames(t *testing.T) {
	if got, want := ownerNames("ces-repro"), []string{"ces-repro", "repro"}; !slices.Equal(got, want) {
		t.Errorf("ownerNames = %q, want %q", got, want)
	}
	if got := ownerNames("a-b-c-d-e-f"); len(got) != maxOwnerNames {
		t.Errorf("ownerNames = %q, want %d names", got, maxOwnerNames)
	}
}

// A cluster-scoped custom resource of the finalizer's own group, named by the finalizer's path,
// whose namespace selectors no longer match the namespace, orphans the finalizer; one that still
// selects it, or whose only selector is of other objects, does not.
func TestDeselectedOwner(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "sync.example.io", Version: "v1", Resource: "clustersyncs"}
	crd := crdObject("sync.example.io", "clustersyncs")
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}
	owner := func(spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "sync.example.io/v1", "kind": "ClusterSync", "metadata": map[string]any{"name": "repro"}, "spec": spec}}
		return u
	}
	nsSel := func(v string) map[string]any {
		return map[string]any{"namespaceSelectors": []any{map[string]any{"matchLabels": map[string]any{"team": v}}}}
	}
	ns := subject{res: kinds.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"},
		obj: &metav1.ObjectMeta{Name: "work", Labels: map[string]string{"team": "no"}}}
	name := "syncs.sync.example.io/cs-repro"
	for _, c := range []struct {
		desc string
		spec map[string]any
		want bool
	}{
		{"no longer selected", nsSel("yes"), true},
		{"still selected", nsSel("no"), false},
		{"a selector of other objects", map[string]any{"podSelector": map[string]any{"matchLabels": map[string]any{"team": "yes"}}}, false},
	} {
		x := fakeExplainerWith(nil, []*apiextensionsv1.CustomResourceDefinition{crd}, map[schema.GroupVersionResource]string{gvr: "ClusterSyncList"}, owner(c.spec))
		why, gaps := x.deselectedOwner(context.Background(), ns, name)
		if len(gaps) > 0 {
			t.Fatalf("%s: gaps %v", c.desc, gaps)
		}
		if got := why != ""; got != c.want {
			t.Errorf("%s: %q, want deselected %v", c.desc, why, c.want)
		}
		if c.want && !strings.Contains(why, "clustersyncs.sync.example.io/repro") {
			t.Errorf("%s: %q does not name the owner", c.desc, why)
		}
	}
}

// Only CRDs whose schema can hold a selector of the stuck object's kind have their objects read
// for it: an owner whose spec (as a fake, unpruned store holds it) has namespace selectors that
// no longer match is not read when its CRD's structural schema declares no such field.
func TestDeselectedOwnerReadsOnlyCRDsThatMaySelect(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "sync.example.io", Version: "v1", Resource: "clustersyncs"}
	ns := subject{res: kinds.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"},
		obj: &metav1.ObjectMeta{Name: "work", Labels: map[string]string{"team": "no"}}}
	owner := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "sync.example.io/v1", "kind": "ClusterSync", "metadata": map[string]any{"name": "repro"},
		"spec": map[string]any{"namespaceSelectors": []any{map[string]any{"matchLabels": map[string]any{"team": "yes"}}}}}}
	object := apiextensionsv1.JSONSchemaProps{Type: "object"}
	preserve := true
	for _, c := range []struct {
		desc string
		spec apiextensionsv1.JSONSchemaProps
		want bool
	}{
		{"declares namespaceSelectors", apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"namespaceSelectors": {Type: "array"}}}, true},
		{"declares it deeper", apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"target": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"namespaceSelector": object}}}}, true},
		{"keeps unknown fields", apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}, true},
		{"a map of free keys", apiextensionsv1.JSONSchemaProps{Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &object}}, true},
		{"declares only a pod selector", apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"podSelector": object}}, false},
	} {
		crd := crdObject("sync.example.io", "clustersyncs")
		crd.Spec.Scope = apiextensionsv1.ClusterScoped
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": c.spec}}}}}
		x := fakeExplainerWith(nil, []*apiextensionsv1.CustomResourceDefinition{crd}, map[schema.GroupVersionResource]string{gvr: "ClusterSyncList"}, owner)
		why, gaps := x.deselectedOwner(context.Background(), ns, "syncs.sync.example.io/cs-repro")
		if len(gaps) > 0 {
			t.Fatalf("%s: gaps %v", c.desc, gaps)
		}
		if got := why != ""; got != c.want {
			t.Errorf("%s: %q, want the owner read and found deselecting (%v)", c.desc, why, c.want)
		}
	}
}

// Two stuck objects with the same finalizer read its named owner once.
func TestDeselectedOwnerReadOncePerCommand(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "sync.example.io", Version: "v1", Resource: "clustersyncs"}
	crd := crdObject("sync.example.io", "clustersyncs")
	crd.Spec.Scope = apiextensionsv1.ClusterScoped
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}
	owner := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "sync.example.io/v1", "kind": "ClusterSync", "metadata": map[string]any{"name": "repro"},
		"spec": map[string]any{"namespaceSelectors": []any{map[string]any{"matchLabels": map[string]any{"team": "yes"}}}}}}
	x := fakeExplainerWith(nil, []*apiextensionsv1.CustomResourceDefinition{crd}, map[schema.GroupVersionResource]string{gvr: "ClusterSyncList"}, owner)
	gets := func() int {
		n := 0
		for _, a := range x.c.Dynamic.(*dynamicfake.FakeDynamicClient).Actions() {
			if a.GetVerb() == "get" {
				n++
			}
		}
		return n
	}
	for _, name := range []string{"work", "play"} {
		ns := subject{res: kinds.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"},
			obj: &metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "no"}}}
		if why, _ := x.deselectedOwner(context.Background(), ns, "syncs.sync.example.io/cs-repro"); why == "" {
			t.Fatalf("namespace %s: not found deselected", name)
		}
	}
	// cs-repro (missing) and repro, once each.
	if got := gets(); got != 2 {
		t.Errorf("%d GETs for two objects, want 2", got)
	}
}
