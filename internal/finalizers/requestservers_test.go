package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A product's API server may update its types on a client's request, and removes no finalizer:
// when it is the only candidate of the domain, no controller of the domain runs (kargo#1647: the
// controller runs elsewhere, only the API server and the webhook server that added the finalizer
// run here). With a right on the type's status, a Lease or leader election it reconciles, and
// stays the remover; beside a controller of the product, it is listed apart.
func TestJudgeDomainSetsRequestServersApart(t *testing.T) {
	stages := rbacv1.PolicyRule{APIGroups: []string{"example.dev"}, Resources: []string{"stages"}, Verbs: []string{"get", "list", "update", "patch"}}
	status := rbacv1.PolicyRule{APIGroups: []string{"example.dev"}, Resources: []string{"stages/status"}, Verbs: []string{"update"}}
	leases := rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}}
	o := subject{res: kinds.Resource{Group: "example.dev", Version: "v1", Resource: "stages", Kind: "Stage", Namespaced: true},
		obj: &metav1.ObjectMeta{Name: "uat", Namespace: "demo", Finalizers: []string{"example.dev/finalizer"}}}
	for _, tc := range []struct {
		name      string
		kube      [][]rbacv1.PolicyRule
		names     []string
		remover   string
		unrelated string
	}{
		{"the API server alone", [][]rbacv1.PolicyRule{{stages}}, []string{"example-api"}, "", "example-api"},
		{"the API server with a right on status", [][]rbacv1.PolicyRule{{stages, status}}, []string{"example-api"}, "example-api", ""},
		{"the API server that may take a Lease", [][]rbacv1.PolicyRule{{stages, leases}}, []string{"example-api"}, "example-api", ""},
		{"the API server beside the controller", [][]rbacv1.PolicyRule{{stages}, {stages}}, []string{"example-api", "example-controller"}, "example-controller", "example-api"},
		{"api as part of a controller's name", [][]rbacv1.PolicyRule{{stages}}, []string{"gateway-api-controller"}, "gateway-api-controller", ""},
		{"a webhook server beside the controller", [][]rbacv1.PolicyRule{{stages}, {stages}}, []string{"example-webhooks-server", "example-controller"}, "example-controller", "example-webhooks-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kube []runtime.Object
			for i, n := range tc.names {
				kube = append(kube, controllerObjects("example", n, tc.kube[i])...)
			}
			x := fakeExplainer(kube, crdObject("example.dev", "stages"))
			a, gaps := x.attribute(context.Background(), o, nil)
			a, more := x.judgeDomain(context.Background(), o, "example.dev/finalizer", nil, nil, a)
			if len(gaps)+len(more) > 0 {
				t.Fatalf("gaps: %v %v", gaps, more)
			}
			first := a.controllers[0]
			switch {
			case tc.remover == "" && (first.Found || !a.dead || !a.noTie || len(a.serversOnly) != 1 || !strings.Contains(first.Note, "no controller of the finalizer's domain example.dev runs")):
				t.Fatalf("controllers %+v, serversOnly %v: want no controller of the domain", a.controllers, a.serversOnly)
			case tc.remover != "" && (!first.Found || first.Object.Name != tc.remover):
				t.Fatalf("controllers %+v: want %s first", a.controllers, tc.remover)
			}
			found := false
			for _, u := range a.unrelated {
				found = found || (u.Object.Name == tc.unrelated && strings.Contains(u.Note, "serves requests"))
			}
			if found != (tc.unrelated != "") {
				t.Fatalf("unrelated %+v: want %q apart as a server", a.unrelated, tc.unrelated)
			}
		})
	}
}

// reconcilingTie reads the rights and arguments that show a controller at work.
func TestReconcilingTie(t *testing.T) {
	rule := func(group, resource string, verbs ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: verbs}
	}
	for _, tc := range []struct {
		name  string
		rules []rbacv1.PolicyRule
		args  []string
		want  bool
	}{
		{"the type alone", []rbacv1.PolicyRule{rule("example.dev", "stages", "update")}, nil, false},
		{"its status", []rbacv1.PolicyRule{rule("example.dev", "stages/status", "patch")}, nil, true},
		{"its finalizers", []rbacv1.PolicyRule{rule("example.dev", "stages/finalizers", "update")}, nil, true},
		{"reading its status", []rbacv1.PolicyRule{rule("example.dev", "stages/status", "get")}, nil, false},
		{"another type's status", []rbacv1.PolicyRule{rule("example.dev", "projects/status", "update")}, nil, false},
		{"leases", []rbacv1.PolicyRule{rule("coordination.k8s.io", "leases", "create")}, nil, true},
		{"leader election asked", nil, []string{"--leader-elect=true"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := &rbacObjects{clusterRoles: map[string][]rbacv1.PolicyRule{"r": tc.rules},
				crbs: []rbacv1.ClusterRoleBinding{{ObjectMeta: metav1.ObjectMeta{Name: "r"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "r"},
					Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ns", Name: "sa"}}}}}
			w := workload{ref: ObjectRef{Namespace: "ns", Name: "w"}, serviceAccount: "sa", args: tc.args}
			if got := reconcilingTie(rb, w, "example.dev", "stages") != ""; got != tc.want {
				t.Fatalf("reconcilingTie = %v, want %v", got, tc.want)
			}
		})
	}
}
