package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

func TestNamedForObject(t *testing.T) {
	for _, c := range []struct {
		finalizer, object string
		want              bool
	}{
		{"db.blab-ticketing", "blab-ticketing", true},
		{"cleanup.Shop", "shop", true},
		{"db.blab-ticketing", "other", false},
		{"resources-finalizer.argocd.argoproj.io", "argocd", false},
		{"example.com/cleanup", "com", true},
		{"no-domain", "no-domain", false},
	} {
		if got := namedForObject(c.finalizer, c.object); got != c.want {
			t.Errorf("namedForObject(%q, %q) = %v, want %v", c.finalizer, c.object, got, c.want)
		}
	}
}

// A finalizer named for its object is not judged against a "domain" no product has: the
// candidates RBAC found stay the candidates, and no controller is called absent.
func TestJudgeDomainKeepsCandidatesOfAnObjectNamedFinalizer(t *testing.T) {
	rules := []rbacv1.PolicyRule{{APIGroups: []string{"store.example.io"}, Resources: []string{"databases"}, Verbs: []string{"*"}}}
	x := fakeExplainer(controllerObjects("store-system", "store-operator", rules), crdObject("store.example.io", "databases"))
	res := kinds.Resource{Group: "store.example.io", Version: "v1", Resource: "databases", Kind: "Database", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "orders", Namespace: "shop", Finalizers: []string{"db.orders"}}}
	a, _ := x.attribute(context.Background(), o, nil)
	a, more := x.judgeDomain(context.Background(), o, "db.orders", nil, nil, a)
	if len(more) > 0 || a.noTie || a.dead || len(a.controllers) != 1 || a.controllers[0].Object.Name != "store-operator" {
		t.Fatalf("controllers = %+v, noTie %v, dead %v, gaps %v", a.controllers, a.noTie, a.dead, more)
	}
}
