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

// A finalizer without a domain (`bus-controller`) is never attributed to a workload whose only
// rights on the object's type are rules that allow everything (a GitOps tool's cluster-admin
// controller of a group it shares with the object): with no other candidate, no controller of
// it is found and the unrelated ones are listed; nor is a rule on every type of the object's
// group a tie. A workload whose roles name the type itself is its controller, and one with
// group-wide rights is listed apart.
func TestJudgeDomainlessNeedsATieToTheType(t *testing.T) {
	everything := rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}
	gitops := controllerObjects("gitops", "gitops-application-controller", []rbacv1.PolicyRule{everything})
	ui := controllerObjects("gitops", "gitops-server", []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "patch", "delete"}}})
	busses := controllerObjects("events", "events-manager", []rbacv1.PolicyRule{
		{APIGroups: []string{"family.example.io"}, Resources: []string{"messagebuses", "messagebuses/status"}, Verbs: []string{"get", "list", "watch", "update", "patch"}}})
	groupWide := controllerObjects("tools", "family-tool", []rbacv1.PolicyRule{{APIGroups: []string{"family.example.io"}, Resources: []string{"*"}, Verbs: []string{"*"}}})
	res := kinds.Resource{Group: "family.example.io", Version: "v1", Resource: "messagebuses", Kind: "MessageBus", Namespaced: true}
	o := subject{res: res, obj: &metav1.ObjectMeta{Name: "default", Namespace: "events", Finalizers: []string{"bus-controller"}}}
	crds := []*apiextensionsv1.CustomResourceDefinition{crdObject("family.example.io", "messagebuses"), crdObject("family.example.io", "applications")}
	join := func(objs ...[]runtime.Object) []runtime.Object {
		var out []runtime.Object
		for _, o := range objs {
			out = append(out, o...)
		}
		return out
	}
	judge := func(t *testing.T, objs []runtime.Object) (attribution, *Explainer) {
		t.Helper()
		x := fakeExplainer(objs, crds...)
		a, gaps := x.attribute(context.Background(), o, nil)
		a, more := x.judgeDomain(context.Background(), o, "bus-controller", nil, nil, a)
		if len(gaps)+len(more) > 0 {
			t.Fatalf("gaps: %v %v", gaps, more)
		}
		return a, x
	}

	t.Run("only rules that allow everything", func(t *testing.T) {
		a, x := judge(t, join(gitops, ui))
		if len(a.controllers) != 1 || a.controllers[0].Found || !a.dead || !a.noTie {
			t.Fatalf("controllers = %+v, dead %v, noTie %v", a.controllers, a.dead, a.noTie)
		}
		if !strings.Contains(a.summary, "no controller of finalizer bus-controller is found") {
			t.Errorf("summary = %q", a.summary)
		}
		if len(a.unrelated) != 2 {
			t.Errorf("unrelated = %+v, want both broad workloads", a.unrelated)
		}
		f := Finalizer{Name: "bus-controller"}
		rs := x.controllerRemedies(o, f, known{lost: "x"}, a, "")
		if len(rs) != 2 || rs[0].Code != ReasonReinstallController || !strings.Contains(rs[0].Summary, "messagebuses.family.example.io") || rs[1].Code != ReasonStripFinalizer {
			t.Errorf("steps = %+v, want reinstalling the type's controller, then the strip", rs)
		}
	})
	t.Run("a group-wide rule is no tie either", func(t *testing.T) {
		a, _ := judge(t, groupWide)
		if !a.noTie || len(a.unrelated) != 1 {
			t.Fatalf("controllers = %+v, unrelated %+v", a.controllers, a.unrelated)
		}
	})
	t.Run("roles naming the type tie its controller", func(t *testing.T) {
		a, _ := judge(t, join(gitops, groupWide, busses))
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "events-manager" || a.controllers[0].Confidence != ConfidenceHigh || a.dead {
			t.Fatalf("controllers = %+v, dead %v", a.controllers, a.dead)
		}
		if !strings.Contains(strings.Join(a.controllers[0].Ties, "\n"), "its roles name messagebuses.family.example.io itself") {
			t.Errorf("ties = %v", a.controllers[0].Ties)
		}
		if len(a.unrelated) != 1 || a.unrelated[0].Object.Name != "family-tool" {
			t.Errorf("unrelated = %+v", a.unrelated)
		}
	})
	t.Run("a name that says the finalizer's word ties, low", func(t *testing.T) {
		named := controllerObjects("events", "bus-operator", []rbacv1.PolicyRule{everything})
		a, _ := judge(t, join(gitops, named))
		if len(a.controllers) != 1 || a.controllers[0].Object.Name != "bus-operator" || a.controllers[0].Confidence != ConfidenceLow {
			t.Fatalf("controllers = %+v", a.controllers)
		}
	})
}
