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

// A bare field named like a kind of the group (`backend: {name: b}`) whose object does not
// exist is no missing object when the object's status records what it names by another
// system's identifier and no object of that kind exists anywhere: it names a thing in the
// system the controller manages. Without the identifier, with an identifier equal to the name,
// with objects of the kind in the cluster, or through a field that calls itself a reference
// (`backendRef`), it stays a missing object.
func TestRemoteNamedFieldIsNoMissingObject(t *testing.T) {
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	other := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "policies.example.io/v1", Kind: "Backend"}, ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}}
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		status  map[string]any
		others  bool
		missing bool
	}{
		{"the status records a remote identifier", map[string]any{"backend": map[string]any{"name": "b"}}, map[string]any{"backendID": "be-9x2kQ"}, false, false},
		{"the identifier under the field's own name", map[string]any{"backend": "b"}, map[string]any{"backend": map[string]any{"id": "be-9x2kQ"}}, false, false},
		{"no identifier recorded", map[string]any{"backend": map[string]any{"name": "b"}}, map[string]any{"phase": "Deleting"}, false, true},
		{"the identifier is the name", map[string]any{"backend": "b"}, map[string]any{"backendId": "b"}, false, true},
		{"objects of the kind exist elsewhere", map[string]any{"backend": map[string]any{"name": "b"}}, map[string]any{"backendID": "be-9x2kQ"}, true, true},
		{"a field that calls itself a reference", map[string]any{"backendRef": map[string]any{"name": "b"}}, map[string]any{"backendRefID": "be-9x2kQ"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.others {
				objs = append(objs, other)
			}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: metadatafake.NewSimpleMetadataClient(scheme, objs...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{testServers, testPolicy, testBackend}, nil))
			body := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec, "status": tc.status}}
			o := subject{res: testPolicy, obj: &metav1.ObjectMeta{Name: "p", Namespace: "apps"}}
			w := ownWord{obj: body}
			found, gaps := x.danglingRefs(context.Background(), o, w)
			if len(gaps) > 0 {
				t.Fatalf("gaps %v", gaps)
			}
			if got := len(found) == 1 && found[0].ref.String() == "backends.policies.example.io/b -n apps"; got != tc.missing {
				t.Fatalf("missing %+v, want the Backend missing: %v", found, tc.missing)
			}
			notes := x.remoteNotes(context.Background(), o, w)
			if named := len(notes) == 1 && strings.Contains(notes[0], "in the system the controller manages"); named == tc.missing {
				t.Errorf("notes %q: want the remote name noted %v", notes, !tc.missing)
			}
		})
	}
}
