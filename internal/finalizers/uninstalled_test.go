package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer whose remover is not found, on a type whose definition is live, is stripped first
// only when nothing of the product's install is left but its definitions: no workload (one at 0
// replicas counts), no service account or Service with the definitions' install labels, no role
// on the product's group granted to a service account, no webhook of the group. Anything left
// means the controller stopped, not that the product was uninstalled: the steps stay as they are.
func TestUninstalledProductStripsFirst(t *testing.T) {
	res := kinds.Resource{Group: "widgets.example.org", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	install := map[string]string{"app": "widgets"}
	zero := int32(0)
	path := "/validate"
	for _, tc := range []struct {
		name  string
		left  []runtime.Object
		first bool
	}{
		{"nothing but the definitions", nil, true},
		{"a deployment at 0 replicas", []runtime.Object{&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "widgets-operator", Namespace: "widgets", Labels: install},
			Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: &metav1.LabelSelector{MatchLabels: install}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: install}}}}}, false},
		{"a workload the product generated from one of its objects", []runtime.Object{&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "widget-agent", Namespace: "widgets", Labels: install,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "widgets.example.org/v1", Kind: "Widget", Name: "w", UID: "uid-w"}}},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: install}, Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: install}}}}}, true},
		{"a service account with the install labels", []runtime.Object{&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "widgets-operator", Namespace: "widgets", Labels: install}}}, false},
		{"a role on the group granted to an account", []runtime.Object{
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{"widgets.example.org"}, Resources: []string{"widgets"}, Verbs: []string{"update"}}}},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "widgets"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "widgets", Name: "widgets-operator"}}}}, false},
		{"a webhook of the group", []runtime.Object{&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "widgets"},
			Webhooks: []admissionv1.ValidatingWebhook{{Name: "v.widgets.example.org", ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "widgets", Name: "widgets-webhook", Path: &path}},
				Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{"widgets.example.org"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}}}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := uninstallExplainer(t, res, install, tc.left...)
			f := Finalizer{Name: "widgets", Controllers: []Controller{{Found: false}}, Remedies: []Remediation{
				{Code: ReasonReinstallController, Summary: "Reinstall the controller; it then removes the finalizer itself."},
				{Code: ReasonStripFinalizer, Summary: "Only if the controller is gone for good: remove finalizer widgets by hand.", LastResort: true},
			}}
			x.reinstallIntoGoingType(context.Background(), res, &f)
			if len(f.Unchecked) > 0 {
				t.Fatalf("unchecked: %v", f.Unchecked)
			}
			if got := f.Remedies[0].Code == ReasonStripFinalizer; got != tc.first {
				t.Fatalf("steps = %+v, want the strip first: %v", f.Remedies, tc.first)
			}
			if !tc.first {
				return
			}
			if f.Remedies[0].LastResort || !strings.Contains(f.Remedies[0].Summary, "uninstalled, not stopped") || !strings.Contains(f.Remedies[0].Summary, "labelled app=widgets") {
				t.Errorf("strip = %+v", f.Remedies[0])
			}
			if f.Remedies[1].Code != ReasonReinstallController || !strings.Contains(f.Remedies[1].Summary, "Only if the product is meant to run here") {
				t.Errorf("reinstall = %+v", f.Remedies[1])
			}
			if len(f.TypeEvidence) == 0 {
				t.Error("no evidence of the uninstall")
			}
		})
	}
}

// uninstallExplainer is an Explainer over fakes holding res's live definition, labelled with
// install, and the objects left of the product.
func uninstallExplainer(t *testing.T, res kinds.Resource, install map[string]string, left ...runtime.Object) *Explainer {
	t.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	name := res.Resource + "." + res.Group
	def := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: install},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: res.Group, Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: res.Resource, Kind: res.Kind}}}
	meta := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: install}}
	lists := map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList", apiServiceGVR: "APIServiceList"}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(left...),
		APIExtensions: apiextensionsfake.NewSimpleClientset(def),
		Dynamic:       dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists),
		Metadata:      metadatafake.NewSimpleMetadataClient(scheme, meta)}
	x := New(c, kinds.NewCatalog([]kinds.Resource{res}, nil))
	x.now = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	return x
}

// What a strip offered first leaves of the storage the spec names, and whether the spec asked
// the controller to delete it on removal.
func TestSpecStoreCost(t *testing.T) {
	obj := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	}
	s3 := map[string]any{"s3": map[string]any{"bucket": "backups", "endpoint": "s3.example.com", "prefix": "/team"}}
	for _, tc := range []struct {
		name      string
		spec      map[string]any
		want, not []string
	}{
		{"a bucket, no switch", map[string]any{"backend": s3}, []string{"bucket backups (spec.backend.s3.bucket; endpoint s3.example.com, prefix /team)", "no switch"}, []string{"not deleted"}},
		{"the switch on", map[string]any{"backend": s3, "wipeOut": true}, []string{"bucket backups", "spec.wipeOut is true", "the outside data is not deleted"}, nil},
		{"the switch off", map[string]any{"backend": s3, "deleteOnRemoval": false}, []string{"spec.deleteOnRemoval is false"}, []string{"not deleted"}},
		{"the switch alone", map[string]any{"purge": true}, []string{"spec.purge is true"}, []string{"bucket"}},
		{"a container without a prefix is no store", map[string]any{"container": "web"}, nil, []string{"bucket"}},
		{"a deletion policy is no switch", map[string]any{"deletionPolicyEnabled": true}, nil, []string{"is true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := readSpecStore(obj(tc.spec)).cost()
			for _, w := range tc.want {
				if !strings.Contains(c, w) {
					t.Errorf("cost %q, want %q", c, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(c, n) {
					t.Errorf("cost %q, want no %q", c, n)
				}
			}
		})
	}
	e := &Explanation{Finalizers: []Finalizer{
		{Name: "first", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "left behind: whatever that controller would have cleaned up"}}},
		{Name: "last", Remedies: []Remediation{{Code: ReasonReadControllerLogs}, {Code: ReasonStripFinalizer, LastResort: true, Cost: "left behind: x"}}},
	}}
	nameSpecStore(e, obj(map[string]any{"backend": s3, "wipeOut": true}))
	if c := e.Finalizers[0].Remedies[0].Cost; !strings.HasPrefix(c, "left behind: the data") || !strings.Contains(c, "not deleted") {
		t.Errorf("first strip's cost %q", c)
	}
	if c := e.Finalizers[1].Remedies[1].Cost; c != "left behind: x" {
		t.Errorf("a last resort's cost changed: %q", c)
	}
}
