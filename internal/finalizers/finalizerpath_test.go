package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestNamesFinalizerPath(t *testing.T) {
	w := func(name string, labels map[string]string) workload {
		return workload{ref: ObjectRef{Namespace: "ns", Name: name}, labels: labels}
	}
	for _, tc := range []struct {
		name, finalizer string
		w               workload
		want            bool
	}{
		{"every path word named", "eip.materialize.cloud/cilium-no-masquerade-rule", w("cilium-eip-no-masquerade-agent", nil), true},
		{"one path word missing", "eip.materialize.cloud/cilium-no-masquerade-rule", w("cilium-agent", nil), false},
		{"another component", "eip.materialize.cloud/cilium-no-masquerade-rule", w("eip-operator", nil), false},
		{"through the app label", "anthos.cft.dev/autoneg", w("controller-manager", map[string]string{"app": "autoneg"}), true},
		{"through the name", "anthos.cft.dev/autoneg", w("autoneg-controller-manager", nil), true},
		{"generic path says nothing", "tailscale.com/finalizer", w("finalizer", nil), false},
		{"no path", "postgres-operator.acid.zalan.do", w("postgres-operator", nil), false},
		{"short words say nothing", "example.com/db", w("db", nil), false},
		{"namespace is not read", "anthos.cft.dev/autoneg", workload{ref: ObjectRef{Namespace: "autoneg", Name: "manager"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := namesFinalizerPath(tc.finalizer, tc.w); got != tc.want {
				t.Fatalf("namesFinalizerPath(%q, %s) = %v, want %v", tc.finalizer, tc.w.ref.Name, got, tc.want)
			}
		})
	}
}

// A product's operator and its per-node agent may both update pods; the finalizer's own name
// after the domain names the agent (k8s-eip-operator#236): the agent is the remover, ranked
// first although the operator is tied more strongly (it acts on the domain's custom resources).
func TestFinalizerPathRanksTheNamedComponentFirst(t *testing.T) {
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "patch"}}
	eips := rbacv1.PolicyRule{APIGroups: []string{"materialize.cloud"}, Resources: []string{"eips"}, Verbs: []string{"*"}}
	kube := append(controllerObjects("eip-operator", "eip-operator", []rbacv1.PolicyRule{pods, eips}),
		controllerObjects("eip-operator", "cilium-eip-no-masquerade-agent", []rbacv1.PolicyRule{pods})...)
	x := fakeExplainer(kube, crdObject("materialize.cloud", "eips"))
	fin := "eip.materialize.cloud/cilium-no-masquerade-rule"
	o := subject{res: kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "environmentd-0", Namespace: "env", Finalizers: []string{fin}}}
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, fin, nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if len(a.controllers) != 2 || a.controllers[0].Object.Name != "cilium-eip-no-masquerade-agent" || a.controllers[1].Object.Name != "eip-operator" {
		t.Fatalf("controllers = %+v", a.controllers)
	}
}

// A controller tied to its finalizer's domain by nothing but the finalizer's own name
// (gke-autoneg-controller#10: anthos.cft.dev/autoneg, the Deployment autoneg-controller-manager)
// is found, not reported absent; a workload that the name does not name stays unrelated.
func TestFinalizerPathTiesAControllerTheDomainDoesNotName(t *testing.T) {
	services := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "update", "patch"}}
	kube := append(controllerObjects("autoneg-system", "autoneg-controller-manager", []rbacv1.PolicyRule{services}),
		controllerObjects("kube-system", "lb-controller", []rbacv1.PolicyRule{services})...)
	x := fakeExplainer(kube, []*apiextensionsv1.CustomResourceDefinition{}...)
	fin := "anthos.cft.dev/autoneg"
	o := subject{res: kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "web", Namespace: "shop", Finalizers: []string{fin}}}
	a, gaps := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, fin, nil, nil, a)
	if len(gaps)+len(more) > 0 {
		t.Fatalf("gaps: %v %v", gaps, more)
	}
	if a.dead || len(a.controllers) != 1 || a.controllers[0].Object.Name != "autoneg-controller-manager" {
		t.Fatalf("controllers = %+v (dead %v)", a.controllers, a.dead)
	}
	if len(a.unrelated) != 1 || a.unrelated[0].Object.Name != "lb-controller" {
		t.Fatalf("unrelated = %+v", a.unrelated)
	}
}
