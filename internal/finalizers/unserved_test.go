package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A product's installer that keeps rights on the API group of a finalizer's domain, once the
// cluster no longer serves that group (its CRDs were removed with the product's hub), is not
// named as the running remover of that finalizer on a RoleBinding; while the group is served,
// the same workload stays the candidate.
func TestJudgeDomainDropsTheInstallerOfAnUnservedDomain(t *testing.T) {
	rbac := rbacv1.PolicyRule{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"get", "list", "watch", "update", "patch", "escalate", "bind"}}
	hub := rbacv1.PolicyRule{APIGroups: []string{"cluster.hubctl.example"}, Resources: []string{"memberclusters"}, Verbs: []string{"get", "list", "watch", "update"}}
	own := rbacv1.PolicyRule{APIGroups: []string{"operator.hubctl.example"}, Resources: []string{"hubs"}, Verbs: []string{"get", "list", "watch", "update"}}
	operator := controllerObjects("hubctl", "hubctl-operator", []rbacv1.PolicyRule{rbac, hub, own})
	res := kinds.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Namespaced: true}
	name := "cluster.hubctl.example/work-cleanup"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "member1:work", Namespace: "member1", Finalizers: []string{name}}}
	operatorCRD := crdObject("operator.hubctl.example", "hubs")

	t.Run("the domain's group is no longer served", func(t *testing.T) {
		x := fakeExplainer(operator, operatorCRD)
		a, gaps := x.attribute(context.Background(), o, nil)
		a, more := x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(gaps)+len(more) > 0 {
			t.Fatalf("gaps: %v %v", gaps, more)
		}
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "" || !a.dead || !a.noTie {
			t.Fatalf("controllers = %+v, dead %v, noTie %v", a.controllers, a.dead, a.noTie)
		}
		if !strings.Contains(a.controllers[0].Note, "no longer serves API group cluster.hubctl.example") {
			t.Errorf("note = %q", a.controllers[0].Note)
		}
		if len(a.unrelated) != 1 || a.unrelated[0].Object.Name != "hubctl-operator" || len(a.unservedBy) != 1 {
			t.Fatalf("unrelated = %+v, unservedBy %q", a.unrelated, a.unservedBy)
		}
		steps := x.controllerRemedies(o, Finalizer{Name: name}, known{}, a, "")
		if len(steps) == 0 || steps[0].Code != ReasonReinstallController || !strings.Contains(steps[0].Summary, "deployments.apps/hubctl-operator -n hubctl") {
			t.Errorf("steps = %+v", steps)
		}
	})
	t.Run("the domain's group is served", func(t *testing.T) {
		x := fakeExplainer(operator, operatorCRD, crdObject("cluster.hubctl.example", "memberclusters"))
		a, _ := x.attribute(context.Background(), o, nil)
		a, _ = x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "hubctl-operator" || a.dead {
			t.Fatalf("controllers = %+v, dead %v", a.controllers, a.dead)
		}
	})
}

// The Kubernetes project's own group families are always served.
func TestServesDomainBuiltInFamilies(t *testing.T) {
	idx := &productIndex{crdGroups: map[string]bool{"apps.example.io": true}}
	for domain, want := range map[string]bool{"service.kubernetes.io": true, "networking.k8s.io": true, "apps.example.io": true, "example.io": true, "other.example.io": false} {
		if got := idx.servesDomain(domain); got != want {
			t.Errorf("servesDomain(%q) = %v, want %v", domain, got, want)
		}
	}
}
