package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// An installer whose only right on the object's group is the right to update the object's own
// type (which made it a candidate) is not named as the remover beside a controller that acts on
// the group's other types; alone, it stays the candidate.
func TestJudgeDomainDropsCandidacyOnlyTies(t *testing.T) {
	classes := rbacv1.PolicyRule{APIGroups: []string{"routing.example.io"}, Resources: []string{"routeclasses"}, Verbs: []string{"get", "update", "patch"}}
	installer := controllerObjects("installer-system", "platform-operator", []rbacv1.PolicyRule{classes,
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"*"}}})
	ctrl := controllerObjects("routing", "route-manager", []rbacv1.PolicyRule{classes,
		{APIGroups: []string{"routing.example.io"}, Resources: []string{"routes", "routes/status"}, Verbs: []string{"get", "list", "watch"}}})
	res := kinds.Resource{Group: "routing.example.io", Version: "v1", Resource: "routeclasses", Kind: "RouteClass"}
	name := "route-exists.routing.example.io"
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "shared", Finalizers: []string{name}}}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("routing.example.io", "routeclasses"), crdObject("routing.example.io", "routes")}

	t.Run("a better-tied controller runs", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), installer...), ctrl...), crds...)
		a, gaps := x.attribute(context.Background(), o, nil)
		a, more := x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(gaps)+len(more) > 0 {
			t.Fatalf("gaps: %v %v", gaps, more)
		}
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "route-manager" {
			t.Fatalf("controllers = %+v", a.controllers)
		}
		if len(a.unrelated) != 1 || a.unrelated[0].Object.Name != "platform-operator" || a.dead {
			t.Fatalf("unrelated = %+v, dead %v", a.unrelated, a.dead)
		}
	})
	t.Run("the installer alone", func(t *testing.T) {
		x := fakeExplainer(installer, crds...)
		a, _ := x.attribute(context.Background(), o, nil)
		a, _ = x.judgeDomain(context.Background(), o, name, nil, nil, a)
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "platform-operator" || a.noTie {
			t.Fatalf("controllers = %+v, noTie %v", a.controllers, a.noTie)
		}
	})
}
