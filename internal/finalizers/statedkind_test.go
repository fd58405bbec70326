package finalizers

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// Which stated kinds resolve, as a table: the kind, the resource (plural), the singular and the
// kind in another case name the type of their group; a short name, a name of another group, a
// subresource or a name no type has resolves to nothing.
func TestForStatedKindTable(t *testing.T) {
	deploy := testDeployments
	deploy.Singular, deploy.ShortNames = "deployment", []string{"deploy"}
	scale := kinds.Resource{Group: "apps", Version: "v1", Resource: "deployments/scale", Kind: "Scale"}
	catalog := kinds.NewCatalog([]kinds.Resource{deploy, scale, testHPAs}, nil)
	resolve := forStatedKind(catalog)
	for _, tc := range []struct {
		name string
		gk   schema.GroupKind
		want string // resource, "" for none
	}{
		{"kind", schema.GroupKind{Group: "apps", Kind: "Deployment"}, "deployments"},
		{"plural resource", schema.GroupKind{Group: "apps", Kind: "deployments"}, "deployments"},
		{"singular", schema.GroupKind{Group: "apps", Kind: "deployment"}, "deployments"},
		{"kind in another case", schema.GroupKind{Group: "autoscaling", Kind: "horizontalPodAutoscaler"}, "horizontalpodautoscalers"},
		{"short name", schema.GroupKind{Group: "apps", Kind: "deploy"}, ""},
		{"another group's resource", schema.GroupKind{Group: "autoscaling", Kind: "deployments"}, ""},
		{"a subresource's kind in another case", schema.GroupKind{Group: "apps", Kind: "scale"}, ""},
		{"no such type", schema.GroupKind{Group: "apps", Kind: "rollouts"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := resolve(tc.gk)
			if got := map[bool]string{true: r.Resource, false: ""}[ok]; got != tc.want {
				t.Fatalf("resolved %q, want %q", got, tc.want)
			}
		})
	}
}

// A target reference whose kind is the resource's plural (`kind: deployments`, as some products
// write it) names the Deployment, and, not found, makes it a missing target.
func TestTypedReferenceByResourceName(t *testing.T) {
	catalog := kinds.NewCatalog([]kinds.Resource{testDeployments}, nil)
	spec := map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "deployments", "name": "llm"}}
	var got []string
	for _, r := range typedReferences(spec, forStatedKind(catalog), "ws-7a") {
		got = append(got, r.path+"="+r.ref().String())
	}
	if want := "spec.scaleTargetRef=deployments.apps/llm -n ws-7a"; strings.Join(got, ",") != want {
		t.Fatalf("references %q, want %q", got, want)
	}
	if gone, _ := unservedReferences(spec, catalog, "ws-7a"); len(gone) != 0 {
		t.Fatalf("a served type written by its resource name read as not served: %v", gone)
	}
}
