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
	testDeployments = kinds.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "list"}}
	testHPAs        = kinds.Resource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers", Kind: "HorizontalPodAutoscaler", Namespaced: true, Verbs: []string{"get", "list"}}
	testClusterRole = kinds.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", Verbs: []string{"get", "list"}}
)

// Which typed references name another object, as a table: a target reference (`target`,
// `targetRef`, `scaleTargetRef`, `targetRefs`) with its kind, name and group (apiVersion,
// apiGroup or group) names that object in any served group; without its group, of a type not
// served, outside a target field (a parametersRef the controller only reads), or free text, it
// names nothing.
func TestTypedReferencesTable(t *testing.T) {
	catalog := kinds.NewCatalog([]kinds.Resource{testDeployments, testHPAs, testClusterRole}, nil)
	for _, tc := range []struct {
		name string
		spec map[string]any
		ns   string
		want []string // path=ref
	}{
		{"apiVersion", map[string]any{"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}, "shop",
			[]string{"spec.targetRef=deployments.apps/web -n shop"}},
		{"apiGroup, own namespace field", map[string]any{"scaleTargetRef": map[string]any{"apiGroup": "apps", "kind": "Deployment", "name": "web", "namespace": "other"}}, "shop",
			[]string{"spec.scaleTargetRef=deployments.apps/web -n other"}},
		{"target, cluster-scoped kind", map[string]any{"target": map[string]any{"group": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}}, "shop",
			[]string{"spec.target=clusterroles.rbac.authorization.k8s.io/view"}},
		{"in a list of targets", map[string]any{"targetRefs": []any{map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": "web"}}}, "shop",
			[]string{"spec.targetRefs[0]=horizontalpodautoscalers.autoscaling/web -n shop"}},
		{"nested", map[string]any{"autoscaling": map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "api"}}}, "shop",
			[]string{"spec.autoscaling.scaleTargetRef=deployments.apps/api -n shop"}},
		{"a reference read from, not a target", map[string]any{"parametersRef": map[string]any{"group": "apps", "kind": "Deployment", "name": "params"},
			"autoscalerRef": map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "name": "web"}}, "shop", nil},
		{"no group stated", map[string]any{"targetRef": map[string]any{"kind": "Deployment", "name": "web"}}, "shop", nil},
		{"a type not served", map[string]any{"targetRef": map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "name": "web"}}, "shop", nil},
		{"not a reference field", map[string]any{"template": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}, "shop", nil},
		{"namespaced kind from a cluster-scoped object", map[string]any{"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}, "", nil},
		{"free text", map[string]any{"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "Web App"}}, "shop", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range typedReferences(tc.spec, catalog.ForGroupKind, tc.ns) {
				got = append(got, r.path+"="+r.ref().String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("references %q, want %q", got, tc.want)
			}
		})
	}
}

// A typed reference to a Deployment that does not exist is dangling, one that exists is not;
// an object that reports its run succeeded had what it names; one Ready when last reconciled
// needs it now.
func TestDanglingTypedReferences(t *testing.T) {
	canaries := kinds.Resource{Group: "rollouts.example.io", Version: "v1", Resource: "canaries", Kind: "Canary", Namespaced: true, Verbs: []string{"get", "list"}}
	x := metaExplainer(t, []kinds.Resource{testDeployments, canaries}, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "live", Namespace: "shop"}})
	ref := func(name string) map[string]any {
		return map[string]any{"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}}
	}
	for _, tc := range []struct {
		name    string
		spec    map[string]any
		conds   []Condition
		missing string
	}{
		{"the target exists", ref("live"), nil, ""},
		{"the target does not exist", ref("gone"), nil, "deployments.apps/gone -n shop"},
		{"it succeeded with its target", ref("gone"), []Condition{{Type: "Succeeded", Status: "True"}}, ""},
		{"ready before its target was deleted", ref("gone"), []Condition{{Type: "Ready", Status: "True"}}, "deployments.apps/gone -n shop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
			o := subject{res: canaries, obj: &metav1.ObjectMeta{Name: "c", Namespace: "shop"}}
			found, gaps := x.danglingRefs(context.Background(), o, ownWord{obj: body, conditions: tc.conds})
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
			}
			if strings.Join(got, ",") != tc.missing || len(gaps) != 0 {
				t.Errorf("missing %q (gaps %q), want %q", got, gaps, tc.missing)
			}
		})
	}
}
