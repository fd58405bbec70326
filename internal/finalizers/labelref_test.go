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
	testPlacement = kinds.Resource{Group: "placement.example.io", Version: "v1", Resource: "placements", Kind: "Placement", Namespaced: true, Verbs: []string{"get", "list"}}
	testFleet     = kinds.Resource{Group: "fleet.example.io", Version: "v1", Resource: "clusters", Kind: "Cluster", Verbs: []string{"get", "list"}}
)

// Which labels name another object, as a table: `<served group>/<kind>` and `…/<kind>-name`
// name that kind's object (in the object's namespace when namespaced); keys of no served group,
// the object's own group, names that are no kind, values that are no name, and a namespaced kind
// from a cluster-scoped object name nothing.
func TestLabelReferencesTable(t *testing.T) {
	served := []kinds.Resource{testPlacement, testFleet, testPolicy}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		ns     string
		want   []string // path=ref
	}{
		{"a kind of a served group", map[string]string{"placement.example.io/placement": "http-gateway"}, "apps", []string{"metadata.labels[placement.example.io/placement]=placements.placement.example.io/http-gateway -n apps"}},
		{"a kind with a -name suffix, cluster-scoped", map[string]string{"fleet.example.io/cluster-name": "prod"}, "apps", []string{"metadata.labels[fleet.example.io/cluster-name]=clusters.fleet.example.io/prod"}},
		{"no served group", map[string]string{"app.kubernetes.io/name": "web", "example.org/placement": "x"}, "apps", nil},
		{"the object's own group", map[string]string{"policies.example.io/policy": "p"}, "apps", nil},
		{"a name that is no kind", map[string]string{"placement.example.io/tier": "gold"}, "apps", nil},
		{"a value that is no name", map[string]string{"placement.example.io/placement": ""}, "apps", nil},
		{"a namespaced kind from a cluster-scoped object", map[string]string{"placement.example.io/placement": "x"}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range labelReferences(tc.labels, served, "policies.example.io", tc.ns) {
				got = append(got, r.path+"="+r.ref().String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("references %q, want %q", got, tc.want)
			}
		})
	}
}

// A label that names an object that does not exist makes it dangling, restorable, with the
// label as the path; one that names an existing object does not.
func TestDanglingRefsFromLabels(t *testing.T) {
	x := metaExplainer(t, []kinds.Resource{testPolicy, testBackend, testPlacement}, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "placement.example.io/v1", Kind: "Placement"}, ObjectMeta: metav1.ObjectMeta{Name: "here", Namespace: "apps"}})
	for _, tc := range []struct{ value, missing string }{
		{"gone", "placements.placement.example.io/gone -n apps"},
		{"here", ""},
	} {
		body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
		o := subject{res: testBackend, obj: &metav1.ObjectMeta{Name: "b", Namespace: "apps", Labels: map[string]string{"placement.example.io/placement": tc.value}}}
		found, gaps := x.danglingRefs(context.Background(), o, ownWord{obj: body})
		var got []string
		for _, d := range found {
			got = append(got, d.ref.String())
			if !d.restorable || d.path != "metadata.labels[placement.example.io/placement]" {
				t.Errorf("%s: restorable %v, path %q", d.ref, d.restorable, d.path)
			}
		}
		if strings.Join(got, ",") != tc.missing || len(gaps) != 0 {
			t.Errorf("label %q: missing %q gaps %q, want %q", tc.value, got, gaps, tc.missing)
		}
	}
}
