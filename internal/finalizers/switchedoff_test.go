package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestSwitchedOffFeatures(t *testing.T) {
	node := workload{ref: ObjectRef{Group: "apps", Resource: "daemonsets", Namespace: "kube-system", Name: "node-agent"}}
	for _, tc := range []struct {
		name, resource string
		args           []string
		want           string
	}{
		{"enable flag off names the type", "networkpolicies", []string{"--enable-network-policy=false"}, "daemonsets.apps/node-agent -n kube-system runs with --enable-network-policy=false"},
		{"enabled suffix off", "gateways", []string{"--gateway-enabled=false"}, "runs with --gateway-enabled=false"},
		{"plural with -es", "classes", []string{"--enable-class=0"}, "runs with --enable-class=0"},
		{"feature on says nothing", "networkpolicies", []string{"--enable-network-policy=true"}, ""},
		{"another feature off says nothing", "networkpolicies", []string{"--enable-ipv6=false", "--enable-cloudwatch-logs=false"}, ""},
		{"a word of the type is not the type", "networkpolicies", []string{"--enable-policy=false"}, ""},
		{"no flag", "networkpolicies", []string{"/agent", "--log-level=info"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := node
			w.args = tc.args
			got := strings.Join(switchedOffFeatures(tc.resource, []workload{w}), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("switchedOffFeatures(%s, %q) = %q, want %q", tc.resource, tc.args, got, tc.want)
			}
		})
	}
}

// A NetworkPolicy keeps a finalizer of a CNI add-on's domain after the add-on's network policy
// feature was switched off (aws/aws-network-policy-agent#567): the add-on's agent still runs,
// tied to the domain, but may not update NetworkPolicies, and runs with
// --enable-network-policy=false. The finalizer is orphaned, and the one step names the switch:
// turn it back on so that the product cleans up, or remove the finalizer by hand.
func TestOrphanedFinalizerNamesTheSwitchedOffFeature(t *testing.T) {
	agent := controllerObjects("kube-system", "node-agent", []rbacv1.PolicyRule{
		{APIGroups: []string{"networking.example.net"}, Resources: []string{"policyendpoints"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"get", "list", "watch"}}})
	d := agent[0].(*appsv1.Deployment)
	d.Spec.Template.Spec.Containers[0].Args = []string{"--enable-ipv6=false", "--enable-network-policy=false"}
	x := fakeExplainer(agent, crdObject("networking.example.net", "policyendpoints"))
	fin := "networking.example.net/resources"
	res := kinds.Resource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "allow-frontend", Namespace: "demo", Finalizers: []string{fin}}}
	f := x.knownOrCustom(context.Background(), o, fin)
	if !f.Orphaned || len(f.Remedies) != 1 || f.Remedies[0].Code != ReasonStripFinalizer {
		t.Fatalf("orphaned = %v, remedies %+v, controllers %+v", f.Orphaned, f.Remedies, f.Controllers)
	}
	for _, want := range []string{"deployments.apps/node-agent -n kube-system runs with --enable-network-policy=false", "switch the feature back on"} {
		if !strings.Contains(f.Remedies[0].Summary, want) {
			t.Errorf("summary %q lacks %q", f.Remedies[0].Summary, want)
		}
	}
	if strings.Contains(f.Remedies[0].Summary, "ipv6") {
		t.Errorf("summary names a feature unrelated to networkpolicies: %q", f.Remedies[0].Summary)
	}
	if ev := strings.Join(f.Controllers[0].Evidence, "\n"); !strings.Contains(ev, "the feature that handles networkpolicies.networking.k8s.io is switched off there") {
		t.Errorf("evidence = %s", ev)
	}
}
