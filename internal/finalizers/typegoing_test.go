package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/kinds"
)

// When the stuck object's own definition is being deleted and nothing of its product runs, the
// strip comes first (no last resort) and the reinstall follows, saying it needs the definition
// gone first; a live definition, or a remover found, leaves the steps as they are.
func TestReinstallIntoGoingType(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	res := kinds.Resource{Group: "example.org", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	def := func(deleting bool) runtime.Object {
		m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.org"}}
		if deleting {
			ts := metav1.NewTime(now.Add(-time.Hour))
			m.DeletionTimestamp, m.Finalizers = &ts, []string{"customresourcecleanup.apiextensions.k8s.io"}
		}
		return m
	}
	steps := func() []Remediation {
		return []Remediation{
			{Code: ReasonReinstallController, Summary: "Reinstall the controller; it then removes the finalizer itself."},
			{Code: ReasonStripFinalizer, Summary: "Only if the controller is gone for good: remove finalizer widgets.example.org/cleanup by hand.", LastResort: true},
		}
	}
	for _, tc := range []struct {
		name          string
		deleting      bool
		controllers   []Controller
		strippedFirst bool
	}{
		{"definition being deleted, nothing runs", true, []Controller{{Found: false}}, true},
		{"definition live, a role of the product still granted", false, []Controller{{Found: false}}, false},
		{"a remover found", true, []Controller{{Found: true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := referentExplainer(t, now, def(tc.deleting))
			// The product's role, still granted to its account: an install part left, so a live
			// definition is no uninstall (uninstalled_test.go has the rest).
			x.c.Kube = kubefake.NewSimpleClientset(controllerObjects("widgets", "widgets-operator", []rbacv1.PolicyRule{{APIGroups: []string{"example.org"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}})[1:]...)
			x.c.APIExtensions = apiextensionsfake.NewSimpleClientset(crdObject("example.org", "widgets"))
			x.c.Dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList", apiServiceGVR: "APIServiceList"})
			f := Finalizer{Name: "widgets.example.org/cleanup", Controllers: tc.controllers, Remedies: steps()}
			x.reinstallIntoGoingType(context.Background(), res, &f)
			if len(f.Unchecked) > 0 {
				t.Fatalf("unchecked: %v", f.Unchecked)
			}
			first := f.Remedies[0]
			if got := first.Code == ReasonStripFinalizer; got != tc.strippedFirst {
				t.Fatalf("steps = %+v, want the strip first: %v", f.Remedies, tc.strippedFirst)
			}
			if tc.strippedFirst && (first.LastResort || !strings.Contains(f.Remedies[1].Summary, "customresourcedefinitions.apiextensions.k8s.io/widgets.example.org is gone")) {
				t.Errorf("steps = %+v", f.Remedies)
			}
		})
	}
}
