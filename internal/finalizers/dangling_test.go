package finalizers

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

var (
	testServers = kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "policyservers", Kind: "PolicyServer", Verbs: []string{"get", "list"}}
	testPolicy  = kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "policies", Kind: "Policy", Verbs: []string{"get", "list"}}
	testBackend = kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "backends", Kind: "Backend", Namespaced: true, Verbs: []string{"get", "list"}}
)

// Which spec fields name another object, as a table: `nodeName`/`node` name a Node; a field
// whose name less a Ref/Name suffix is a kind of the group names that kind, as a string or a
// {name: …} object; free text, other kinds, an empty base (`name`) and a namespaced kind named
// from a cluster-scoped object without a namespace name nothing.
func TestSpecReferencesTable(t *testing.T) {
	byKind := map[string]kinds.Resource{"policyserver": testServers, "backend": testBackend}
	for _, tc := range []struct {
		name string
		spec map[string]any
		ns   string
		want []string // path=ref
	}{
		{"node name", map[string]any{"nodeName": "worker-9"}, "", []string{"spec.nodeName=nodes/worker-9"}},
		{"node, nested", map[string]any{"placement": map[string]any{"node": "worker-9"}}, "", []string{"spec.placement.node=nodes/worker-9"}},
		{"kind of the group, bare", map[string]any{"policyServer": "typo"}, "", []string{"spec.policyServer=policyservers.policies.example.io/typo"}},
		{"kind with a Name suffix", map[string]any{"policyServerName": "a"}, "", []string{"spec.policyServerName=policyservers.policies.example.io/a"}},
		{"kind with a Ref object", map[string]any{"backendRef": map[string]any{"name": "b", "namespace": "other"}}, "", []string{"spec.backendRef=backends.policies.example.io/b -n other"}},
		{"namespaced kind in the object's namespace", map[string]any{"backend": "b"}, "apps", []string{"spec.backend=backends.policies.example.io/b -n apps"}},
		{"in a list", map[string]any{"targets": []any{map[string]any{"backendRef": map[string]any{"name": "b"}}}}, "apps", []string{"spec.targets[0].backendRef=backends.policies.example.io/b -n apps"}},
		{"namespaced kind from a cluster-scoped object", map[string]any{"backend": "b"}, "", nil},
		{"a Ref object of another kind", map[string]any{"backendRef": map[string]any{"kind": "Service", "name": "b"}}, "apps", nil},
		{"a kind outside the group", map[string]any{"secretName": "s", "serviceAccountName": "sa"}, "apps", nil},
		{"the bare name field", map[string]any{"name": "pvc-1"}, "", nil},
		{"free text", map[string]any{"policyServer": "Not A Name", "nodeName": ""}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range specReferences(tc.spec, byKind, tc.ns) {
				got = append(got, r.path+"="+r.ref().String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("references %q, want %q", got, tc.want)
			}
		})
	}
}

// The references are read: one that does not exist is dangling, one that exists is not, and a
// read that is refused is a gap, never "missing".
func TestDanglingRefsReads(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	exists := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "policies.example.io/v1", Kind: "PolicyServer"}, ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	meta := metadatafake.NewSimpleMetadataClient(scheme, []runtime.Object{exists}...)
	meta.PrependReactor("get", "backends", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "policies.example.io", Resource: "backends"}, "b", nil)
	})
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: meta}
	x := New(c, kinds.NewCatalog([]kinds.Resource{testServers, testPolicy, testBackend, nodeResource}, nil))
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		conds   []Condition
		missing string
		gap     string
	}{
		{"the named object exists", map[string]any{"policyServer": "default"}, nil, "", ""},
		{"the named object does not exist", map[string]any{"policyServer": "typo"}, nil, "policyservers.policies.example.io/typo", ""},
		{"the node does not exist", map[string]any{"nodeName": "gone-1"}, nil, "nodes/gone-1", ""},
		{"the read is refused", map[string]any{"backendRef": map[string]any{"name": "b", "namespace": "apps"}}, nil, "", "backends.policies.example.io/b -n apps"},
		{"it succeeded with what it names", map[string]any{"policyServer": "typo"}, []Condition{{Type: "Succeeded", Status: "True"}}, "", ""},
		{"it succeeded, on a node now gone", map[string]any{"policyServer": "typo", "nodeName": "gone-1"}, []Condition{{Type: "Succeeded", Status: "True"}}, "nodes/gone-1", ""},
		{"ready before what it names was deleted", map[string]any{"policyServer": "typo"}, []Condition{{Type: "Ready", Status: "True"}}, "policyservers.policies.example.io/typo", ""},
		{"the group's one kind ending in the stem", map[string]any{"serverRef": map[string]any{"name": "gone"}}, nil, "policyservers.policies.example.io/gone", ""},
		{"the stem ends no kind", map[string]any{"clusterRef": map[string]any{"name": "gone"}}, nil, "", ""},
		{"it failed with what it names", map[string]any{"policyServer": "typo"}, []Condition{{Type: "Ready", Status: "False"}}, "policyservers.policies.example.io/typo", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
			o := subject{res: testPolicy, obj: &metav1.ObjectMeta{Name: "p"}}
			found, gaps := x.danglingRefs(context.Background(), o, ownWord{obj: body, conditions: tc.conds})
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
			}
			if strings.Join(got, ",") != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
			if (tc.gap == "") != (len(gaps) == 0) || (tc.gap != "" && !strings.Contains(gaps[0].String(), tc.gap)) {
				t.Errorf("gaps %q, want one naming %q", gaps, tc.gap)
			}
		})
	}
}
