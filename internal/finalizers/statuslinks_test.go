package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

func TestLinkField(t *testing.T) {
	for _, tc := range []struct {
		field, stem string
		ok          bool
	}{
		{"linked_by_policies", "policies", true},
		{"usedBy", "", true},
		{"referencedByGateways", "gateways", true},
		{"ownedBy", "", false},
		{"managedBy", "", false},
		{"linked_apis", "", false},
		{"policies", "", false},
	} {
		stem, ok := linkField(tc.field)
		if stem != tc.stem || ok != tc.ok {
			t.Errorf("linkField(%q) = %q, %v; want %q, %v", tc.field, stem, ok, tc.stem, tc.ok)
		}
	}
}

// An object whose own status lists what is still linked to it (an API definition's
// linked_by_policies) names its blockers: the listed objects that exist, resolved to the group's
// one kind the field's words name; gone ones, unresolvable kinds and lists of where the object
// comes from (ownedBy) are not.
func TestStatusLinks(t *testing.T) {
	apis := kinds.Resource{Group: "gw.example.io", Version: "v1alpha1", Resource: "apidefinitions", Kind: "ApiDefinition", Namespaced: true}
	policies := kinds.Resource{Group: "gw.example.io", Version: "v1alpha1", Resource: "securitypolicies", Kind: "SecurityPolicy", Namespaced: true}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	exists := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "gw.example.io/v1alpha1", Kind: "SecurityPolicy"}, ObjectMeta: metav1.ObjectMeta{Name: "httpbin", Namespace: "default"}}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: metadatafake.NewSimpleMetadataClient(scheme, []runtime.Object{exists}...)}
	x := New(c, kinds.NewCatalog([]kinds.Resource{apis, policies}, nil))
	o := subject{res: apis, obj: &metav1.ObjectMeta{Name: "httpbin", Namespace: "default"}}
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   string
	}{
		{"a linked policy exists", map[string]any{"linked_by_policies": []any{map[string]any{"name": "httpbin", "namespace": "default"}}}, "securitypolicies.gw.example.io/httpbin -n default (status.linked_by_policies)"},
		{"in the object's namespace by default", map[string]any{"linked_by_policies": []any{"httpbin"}}, "securitypolicies.gw.example.io/httpbin -n default (status.linked_by_policies)"},
		{"the linked policy is gone", map[string]any{"linked_by_policies": []any{map[string]any{"name": "gone", "namespace": "default"}}}, ""},
		{"no kind ends in the words", map[string]any{"linked_by_routes": []any{"httpbin"}}, ""},
		{"where it comes from is no link", map[string]any{"ownedBy": []any{map[string]any{"kind": "SecurityPolicy", "name": "httpbin"}}}, ""},
		{"a stated kind", map[string]any{"usedBy": []any{map[string]any{"kind": "SecurityPolicy", "name": "httpbin"}}}, "securitypolicies.gw.example.io/httpbin -n default (status.usedBy)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := ownWord{obj: &unstructured.Unstructured{Object: map[string]any{"status": tc.status}}}
			found, gaps := x.statusLinks(context.Background(), o, w)
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			var got []string
			for _, n := range found {
				got = append(got, refFor(n.res, n.namespace, n.name).String()+" ("+n.source+")")
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("linked %q, want %q", got, tc.want)
			}
		})
	}
}
