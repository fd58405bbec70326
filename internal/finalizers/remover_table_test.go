package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// The remover ranking as a table, without a control plane (kstatus' status_compute_test.go
// style): the controllers and CRDs of a cluster and one finalizer in, the named remover, its
// confidence, the candidates set apart as unrelated and the orphan verdict out.
func TestRemoverRankingTable(t *testing.T) {
	rule := func(group, resource string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
	}
	updates := func(resource string) rbacv1.PolicyRule { return rule("", resource, "get", "list", "update", "patch") }
	objects := func(sets ...[]runtime.Object) []runtime.Object {
		var out []runtime.Object
		for _, s := range sets {
			out = append(out, s...)
		}
		return out
	}
	lb := controllerObjects("kube-system", "aws-load-balancer-controller", []rbacv1.PolicyRule{updates("services"), rule("elbv2.k8s.aws", "targetgroupbindings", "*")})
	pg := controllerObjects("postgres", "postgres-operator", []rbacv1.PolicyRule{updates("services"), rule("acid.zalan.do", "postgresqls", "*")})
	// A workload tied to widgets.acme.io only by its image (registry.example/acme-agent) and name.
	agent := controllerObjects("tools", "acme-agent", []rbacv1.PolicyRule{updates("configmaps")})
	acme := controllerObjects("acme-system", "operator", []rbacv1.PolicyRule{updates("configmaps"), rule("acme.io", "widgets", "*")})
	policy := controllerObjects("policy", "kyverno", []rbacv1.PolicyRule{updates("configmaps")})
	gsSecrets := controllerObjects("giantswarm", "aws-operator", []rbacv1.PolicyRule{updates("secrets"), rule("infrastructure.giantswarm.io", "awsclusters", "*")})
	gsNoSecrets := controllerObjects("giantswarm", "aws-operator", []rbacv1.PolicyRule{rule("", "secrets", "get"), rule("infrastructure.giantswarm.io", "awsclusters", "*")})

	svc := kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
	cm := kinds.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	secret := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("acid.zalan.do", "postgresqls"), crdObject("elbv2.k8s.aws", "targetgroupbindings"),
		crdObject("acme.io", "widgets"), crdObject("infrastructure.giantswarm.io", "awsclusters")}

	for _, tc := range []struct {
		name      string
		kube      []runtime.Object
		res       kinds.Resource
		finalizer string
		// remover is the first candidate named ("" when none of the domain is), with its confidence.
		remover    string
		confidence Confidence
		unrelated  []string
		orphaned   bool
	}{
		{"rights on the domain's own custom resources outrank broad rights on the type", objects(lb, pg), svc, "postgres-operator.acid.zalan.do",
			"postgres-operator", ConfidenceHigh, []string{"aws-load-balancer-controller"}, false},
		{"no controller of the domain: the unrelated one is never named", lb, svc, "postgres-operator.acid.zalan.do",
			"", "", []string{"aws-load-balancer-controller"}, false},
		{"a sibling group under the domain's parent is a medium tie", gsSecrets, secret, "operatorkit.giantswarm.io/aws-operator-cluster-controller",
			"aws-operator", ConfidenceMedium, nil, false},
		{"an image naming the domain is a medium tie; no tie is unrelated", objects(agent, policy), cm, "widgets.acme.io/cleanup",
			"acme-agent", ConfidenceMedium, []string{"kyverno"}, false},
		{"the strongest tie is named first", objects(agent, acme, policy), cm, "widgets.acme.io/cleanup",
			"operator", ConfidenceHigh, []string{"kyverno"}, false},
		{"the domain's product runs but may not update the object: orphaned", gsNoSecrets, secret, "operatorkit.giantswarm.io/aws-operator-cluster-controller",
			"", "", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.kube, crds...)
			o := subject{res: tc.res, obj: &metav1.ObjectMeta{Name: "stuck", Namespace: "app", Finalizers: []string{tc.finalizer}}}
			f := x.knownOrCustom(context.Background(), o, tc.finalizer)
			if len(f.Incomplete) > 0 {
				t.Fatalf("incomplete: %v", f.Incomplete)
			}
			if len(f.Controllers) == 0 {
				t.Fatalf("no controller candidate: %+v", f)
			}
			first := f.Controllers[0]
			got := ""
			if first.Found {
				got = first.Object.Name
			}
			if got != tc.remover || first.Confidence != tc.confidence {
				t.Errorf("remover = %q (%s), want %q (%s); controllers %+v", got, first.Confidence, tc.remover, tc.confidence, f.Controllers)
			}
			var unrelated []string
			for _, u := range f.Unrelated {
				unrelated = append(unrelated, u.Object.Name)
			}
			if strings.Join(unrelated, ",") != strings.Join(tc.unrelated, ",") {
				t.Errorf("unrelated = %v, want %v", unrelated, tc.unrelated)
			}
			if f.Orphaned != tc.orphaned {
				t.Errorf("orphaned = %v, want %v", f.Orphaned, tc.orphaned)
			}
		})
	}
}
