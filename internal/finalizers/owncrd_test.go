package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// labelled is controllerObjects with more labels on the Deployment.
func labelled(ns, name string, rules []rbacv1.PolicyRule, labels map[string]string) []runtime.Object {
	objs := controllerObjects(ns, name, rules)
	d := objs[0].(*appsv1.Deployment)
	for k, v := range labels {
		d.Labels = setLabel(d.Labels, k, v)
	}
	return objs
}

func setLabel(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// A parent project with rights on every type of a family and the provider whose type it is
// (Cluster API and its OpenStack provider, cluster-api-provider-openstack#906): both are tied
// with high confidence to a finalizer named for the type under its group; the labels the type's
// own CRD was installed with say which is its controller. The rule reads only when the finalizer
// is the type's own (its group, or the type's name under it), never names products, and ignores
// keys that say an object's part or version.
func TestOwnTypeLabelsRankTheProviderFirst(t *testing.T) {
	const group, key = "infra.fleet.example", "fleet.example/provider"
	res := kinds.Resource{Group: group, Version: "v1", Resource: "widgetclusters", Kind: "WidgetCluster", Namespaced: true}
	wildcard := []rbacv1.PolicyRule{
		{APIGroups: []string{"fleet.example"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{group}, Resources: []string{"*"}, Verbs: []string{"get", "list", "update", "patch"}}}
	exact := []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: []string{"widgetclusters", "widgetclusters/status", "widgetmachines"}, Verbs: []string{"get", "list", "update", "patch"}}}
	crd := func(labels map[string]string) *apiextensionsv1.CustomResourceDefinition {
		c := crdObject(group, "widgetclusters")
		c.Spec.Names.Kind, c.Spec.Names.Singular, c.Labels = "WidgetCluster", "widgetcluster", labels
		return c
	}
	provider := map[string]string{key: "infrastructure-widget", "fleetctl.fleet.example": ""}
	for _, tc := range []struct {
		name, finalizer         string
		crdLabels               map[string]string
		parentLabels, provLabel map[string]string
		// parent and prov are the workloads' names (their order must not decide); first is
		// "parent" or "provider".
		parent, prov, first string
		evidence            string
	}{
		{"the provider shares the CRD's provider label, the parent's differs", "widgetcluster." + group, provider,
			map[string]string{key: "core"}, map[string]string{key: "infrastructure-widget"}, "a-fleet-cluster-manager", "z-widget-manager", "provider",
			"is also on customresourcedefinitions.apiextensions.k8s.io/widgetclusters." + group},
		{"names sorted the other way", "widgetcluster." + group, provider,
			map[string]string{key: "core"}, map[string]string{key: "infrastructure-widget"}, "z-fleet-cluster-manager", "a-widget-manager", "provider", ""},
		{"a differing label alone is evidence against", "widgetcluster." + group, provider,
			map[string]string{key: "core"}, nil, "a-fleet-cluster-manager", "z-widget-manager", "provider",
			"differs from " + key + "=infrastructure-widget"},
		{"the group itself as the finalizer's domain", group, provider,
			map[string]string{key: "core"}, map[string]string{key: "infrastructure-widget"}, "a-fleet-cluster-manager", "z-widget-manager", "provider", ""},
		{"a finalizer of another product on the type: the type's labels do not rank", "audit." + group, provider,
			map[string]string{key: "core"}, map[string]string{key: "infrastructure-widget"}, "a-fleet-cluster-manager", "z-widget-manager", "parent", ""},
		{"empty values, parts and versions are no evidence", "widgetcluster." + group,
			map[string]string{"fleetctl.fleet.example": "", "app.kubernetes.io/component": "crd", "app.kubernetes.io/version": "v0.3.4"},
			map[string]string{"fleetctl.fleet.example": "", "app.kubernetes.io/component": "crd", "app.kubernetes.io/version": "v0.3.4"},
			map[string]string{"app.kubernetes.io/component": "manager", "app.kubernetes.io/version": "v0.3.15"}, "a-fleet-cluster-manager", "z-widget-manager", "parent", ""},
		{"a shared release label ranks like any product label", "widgetcluster." + group, map[string]string{"release": "widgets"},
			map[string]string{"release": "fleet"}, map[string]string{"release": "widgets"}, "a-fleet-cluster-manager", "z-widget-manager", "provider", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := append(labelled("fleet-system", tc.parent, wildcard, tc.parentLabels), labelled("widget-system", tc.prov, exact, tc.provLabel)...)
			x := fakeExplainer(kube, crd(tc.crdLabels), crdObject("fleet.example", "clusters"))
			o := subject{res: res, obj: &metav1.ObjectMeta{Name: "c1", Namespace: "app", Finalizers: []string{tc.finalizer}}}
			a, gaps := x.attribute(context.Background(), o, nil)
			a, more := x.judgeDomain(context.Background(), o, tc.finalizer, nil, nil, a)
			if len(gaps)+len(more) > 0 {
				t.Fatalf("gaps: %v %v", gaps, more)
			}
			if len(a.controllers) != 2 || a.controllers[0].Confidence != ConfidenceHigh || a.controllers[1].Confidence != ConfidenceHigh {
				t.Fatalf("want two high-confidence candidates, got %+v", a.controllers)
			}
			want := map[string]string{"parent": tc.parent, "provider": tc.prov}[tc.first]
			if got := a.controllers[0].Object.Name; got != want {
				t.Fatalf("first = %s, want %s (%+v)", got, want, a.controllers)
			}
			if tc.evidence != "" && !strings.Contains(strings.Join(append(a.controllers[0].Evidence, a.controllers[1].Evidence...), "\n"), tc.evidence) {
				t.Fatalf("no evidence %q in %+v", tc.evidence, a.controllers)
			}
		})
	}
}
