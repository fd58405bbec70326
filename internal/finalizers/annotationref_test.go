package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

var (
	testNodeRes     = kinds.Resource{Version: "v1", Resource: "nodes", Kind: "Node", Verbs: []string{"get", "list"}}
	testPVCRes      = kinds.Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true, Verbs: []string{"get", "list"}}
	testBindingsRes = kinds.Resource{Version: "v1", Resource: "bindings", Kind: "Binding", Namespaced: true, Verbs: []string{"create"}}
	testServiceRes  = kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true, Verbs: []string{"get", "list"}}
	// A served group's Service, and one of the object's own group: neither is the core Service.
	testServingService = kinds.Resource{Group: "serving.example.io", Version: "v1", Resource: "services", Kind: "Service", Namespaced: true, Verbs: []string{"get", "list"}}
	testOwnService     = kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "services", Kind: "Service", Namespaced: true, Verbs: []string{"get", "list"}}
)

// Which annotations name another object, as a table: `<any qualified prefix>/<core kind>` and
// `…/<core kind>-name` name that core object (the object's own group's prefix included);
// `<served group>/<kind>` names that group's kind; unqualified prefixes, the object's own
// group's kinds, names that are no kind, kinds that cannot be read, values that are no name,
// and a namespaced kind from a cluster-scoped object name nothing.
func TestAnnotationReferencesTable(t *testing.T) {
	served := []kinds.Resource{testPlacement, testFleet, testPolicy, testBackend, testNodeRes, testPVCRes, testBindingsRes, testServiceRes, testServingService, testOwnService}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		ns          string
		want        []string // path=ref node
	}{
		{"a core node under the object's own group", map[string]string{"policies.example.io/node-name": "worker-2"}, "apps", []string{"metadata.annotations[policies.example.io/node-name]=nodes/worker-2 true"}},
		{"a core node under any qualified prefix", map[string]string{"remediation.example.org/node": "worker-2"}, "", []string{"metadata.annotations[remediation.example.org/node]=nodes/worker-2 true"}},
		{"a namespaced core kind", map[string]string{"volumes.example.org/persistent-volume-claim": "data"}, "apps", []string{"metadata.annotations[volumes.example.org/persistent-volume-claim]=persistentvolumeclaims/data -n apps false"}},
		{"a kind of a served group", map[string]string{"fleet.example.io/cluster-name": "prod"}, "apps", []string{"metadata.annotations[fleet.example.io/cluster-name]=clusters.fleet.example.io/prod false"}},
		{"a served kind under another prefix", map[string]string{"example.org/cluster-name": "prod"}, "apps", nil},
		{"a served group's kind of a core kind's name", map[string]string{"serving.example.io/service": "web"}, "apps", []string{"metadata.annotations[serving.example.io/service]=services.serving.example.io/web -n apps false"}},
		{"the object's own group's kind of a core kind's name", map[string]string{"policies.example.io/service": "web"}, "apps", nil},
		{"an unqualified prefix", map[string]string{"tools/node-name": "worker-2"}, "apps", nil},
		{"the object's own group's kind", map[string]string{"policies.example.io/backend": "b"}, "apps", nil},
		{"a name that is no kind", map[string]string{"example.org/selected-node": "worker-2", "example.org/nodeid": "n1"}, "apps", nil},
		{"a kind that cannot be read", map[string]string{"example.org/binding": "b"}, "apps", nil},
		{"a value that is no name", map[string]string{"example.org/node-name": "Worker 2", "example.org/node": ""}, "apps", nil},
		{"a namespaced kind from a cluster-scoped object", map[string]string{"example.org/persistentvolumeclaim": "data"}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range annotationReferences(tc.annotations, served, "policies.example.io", tc.ns) {
				got = append(got, r.path+"="+r.ref().String()+" "+map[bool]string{true: "true", false: "false"}[r.node])
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("references %q, want %q", got, tc.want)
			}
		})
	}
}

// An annotation that names a Node that does not exist makes it dangling and not restorable (the
// strip comes first), with the annotation as the path and the object's own name as
// corroboration, even where the object's conditions report success; one that names an existing
// node does not, and the object's own name alone (no annotation) names nothing.
func TestDanglingRefsFromAnnotatedNode(t *testing.T) {
	x := metaExplainer(t, []kinds.Resource{testPolicy, testBackend, testNodeRes}, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}})
	succeeded := []Condition{{Type: "Succeeded", Status: "True"}}
	for _, tc := range []struct {
		name        string
		annotations map[string]string
		conditions  []Condition
		missing     string
		context     string
	}{
		{"a gone node, named after it", map[string]string{"policies.example.io/node-name": "worker-2"}, nil, "nodes/worker-2", "the object is named after it too (worker-2)"},
		{"a gone node, succeeded", map[string]string{"policies.example.io/node-name": "worker-2"}, succeeded, "nodes/worker-2", "the object is named after it too (worker-2)"},
		{"an existing node", map[string]string{"policies.example.io/node-name": "worker-1"}, nil, "", ""},
		{"only the object's own name", nil, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
			o := subject{res: testBackend, obj: &metav1.ObjectMeta{Name: "worker-2", Namespace: "apps", Annotations: tc.annotations}}
			found, gaps := x.danglingRefs(context.Background(), o, ownWord{obj: body, conditions: tc.conditions})
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
				if d.restorable || d.path != "metadata.annotations[policies.example.io/node-name]" || strings.Join(d.context, ";") != tc.context || !strings.Contains(d.reason, "never finishes") {
					t.Errorf("%s: restorable %v, path %q, context %q, reason %q", d.ref, d.restorable, d.path, d.context, d.reason)
				}
			}
			if strings.Join(got, ",") != tc.missing || len(gaps) != 0 {
				t.Errorf("missing %q gaps %q, want %q", got, gaps, tc.missing)
			}
		})
	}
}
