package finalizers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apitypes "k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A product's finalizer on a Secret, kept while one of the product's objects refers to it: when
// the product's types (whose schema has a field pointing to Secrets) were all read and none
// refers to it, the strip comes first and says what was read; a referrer is a blocker instead;
// a type that could not be read leaves "no referrer" unsaid (UNKNOWN, no strip first); types
// whose schema cannot point to a Secret make no claim.
func TestForeignFinalizerWithoutReferrer(t *testing.T) {
	secrets := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true, Verbs: []string{"get", "list", "update"}}
	contexts := kinds.Resource{Group: "widgets.example.io", Version: "v1", Resource: "contexts", Kind: "Context", Namespaced: true, Verbs: []string{"get", "list"}}
	const fin = "finalizers.widgets.example.io/contextSecret"
	withRef := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"auth": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"secretRef": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}, "namespace": {Type: "string"}}}}}}}}}
	withoutRef := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"baseUrl": {Type: "string"}}}}}
	ctxObj := func(secret string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "widgets.example.io/v1", "kind": "Context",
			"metadata": map[string]any{"name": "ctx-" + secret, "namespace": "apim"},
			"spec":     map[string]any{"auth": map[string]any{"secretRef": map[string]any{"name": secret, "namespace": "apim"}}}}}
	}
	for _, tc := range []struct {
		name       string
		schema     *apiextensionsv1.JSONSchemaProps
		objs       []runtime.Object
		listFails  bool
		stripFirst bool
		blocker    bool
	}{
		{"no context refers to it", withRef, []runtime.Object{ctxObj("rotated")}, false, true, false},
		{"a context refers to it", withRef, []runtime.Object{ctxObj("rotated"), ctxObj("old-credentials")}, false, false, true},
		{"the contexts could not be read", withRef, nil, true, false, false},
		{"no type of the product can refer to a Secret", withoutRef, []runtime.Object{ctxObj("rotated")}, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "contexts.widgets.example.io"},
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: contexts.Group, Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "contexts", Kind: "Context"},
					Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: tc.schema}}}}}
			lists := map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList", apiServiceGVR: "APIServiceList", contexts.GVR(): "ContextList"}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, tc.objs...)
			if tc.listFails {
				dyn.PrependReactor("list", "contexts", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, errors.New("the server is currently unable to handle the request")
				})
			}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(),
				APIExtensions: apiextensionsfake.NewSimpleClientset(crd), Dynamic: dyn, Metadata: metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())}
			x := New(c, kinds.NewCatalog([]kinds.Resource{secrets, contexts}, nil))
			x.now = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "old-credentials", Namespace: "apim", UID: apitypes.UID("uid-old"), Finalizers: []string{fin}}}
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}
			e := &Explanation{Finalizers: []Finalizer{{Name: fin, bypass: &strip,
				Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "widgets-operator"}, Found: true, Healthy: true}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}, strip}}}}
			o := subject{res: secrets, obj: secret}
			x.applyReferrers(context.Background(), o, e, ownWord{})
			x.applyForeignUnreferenced(context.Background(), o, e)
			f := e.Finalizers[0]
			if got := f.Remedies[0].Code == ReasonStripFinalizer && !f.Remedies[0].LastResort; got != tc.stripFirst {
				t.Fatalf("steps %+v, want the strip first: %v", f.Remedies, tc.stripFirst)
			}
			if tc.stripFirst && (!strings.Contains(f.Remedies[0].Summary, "Context spec.auth.secretRef") || !strings.Contains(f.Remedies[0].Summary, "read 1 object of 1 type (contexts.widgets.example.io)")) {
				t.Errorf("strip %q", f.Remedies[0].Summary)
			}
			if got := len(f.Blockers) > 0; got != tc.blocker {
				t.Errorf("blockers %+v, want some: %v", f.Blockers, tc.blocker)
			}
			if tc.listFails && (len(f.Incomplete) == 0 || f.refs != nil) {
				t.Errorf("an unread type: incomplete %v, refs %+v", f.Incomplete, f.refs)
			}
		})
	}
}

// "No object refers to it" is said only over a search that read every candidate type.
func TestNoReferrerLine(t *testing.T) {
	r := kinds.Resource{Group: "widgets.example.io", Resource: "contexts"}
	for _, tc := range []struct {
		name string
		refs *refRead
		want string
	}{
		{"no search", nil, "was not established"},
		{"no candidate type", &refRead{}, "no type the cluster serves can refer to it"},
		{"types read", &refRead{types: []refType{{res: r}, {res: kinds.Resource{Resource: "persistentvolumeclaims"}}}, objects: 3}, "read 3 objects of 2 types that could (contexts.widgets.example.io, persistentvolumeclaims)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := noReferrerLine(tc.refs); !strings.Contains(got, tc.want) {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}

// The domains whose products' types are not the object's own.
func TestForeignDomains(t *testing.T) {
	secret := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret"}
	own := kinds.Resource{Group: "widgets.example.io", Resource: "contexts", Kind: "Context"}
	for _, tc := range []struct {
		name string
		res  kinds.Resource
		fins []string
		want string
	}{
		{"a product's finalizer on a Secret", secret, []string{"finalizers.widgets.example.io/contextSecret"}, "finalizers.widgets.example.io"},
		{"the product's own type", own, []string{"finalizers.widgets.example.io/x"}, ""},
		{"Kubernetes' own", secret, []string{"kubernetes.io/pvc-protection"}, ""},
		{"no domain", secret, []string{"cleanup"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(foreignDomains(tc.res, tc.fins), ","); got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
		})
	}
}
