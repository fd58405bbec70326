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

// A finalizer no workload removes, on an object a user outside the cluster may update and whose
// name ties to the finalizer's domain (User flux, flux-framework.readthedocs.io): that client is
// the remover; the reinstall step goes, the client comes first, the strip follows. A user tied
// to nothing, a cluster-admin-like rule, a system: identity and a finalizer whose controller is
// installed are left alone.
func TestOutsideClient(t *testing.T) {
	workflows := kinds.Resource{Group: "dataworkflowservices.github.io", Version: "v1alpha2", Resource: "workflows", Kind: "Workflow", Namespaced: true}
	role := func(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	}
	bind := func(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: roleName}, Subjects: subjects}
	}
	updateWorkflows := rbacv1.PolicyRule{APIGroups: []string{"dataworkflowservices.github.io"}, Resources: []string{"workflows"}, Verbs: []string{"get", "update", "patch"}}
	everything := rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}
	user := func(n string) rbacv1.Subject { return rbacv1.Subject{Kind: rbacv1.UserKind, Name: n} }
	o := subject{res: workflows, obj: &metav1.ObjectMeta{Name: "fluxjob-1", Namespace: "default"}}
	finalizer := func(found bool) Finalizer {
		return Finalizer{Name: "flux-framework.readthedocs.io/workflow", Domain: "flux-framework.readthedocs.io",
			Controllers: []Controller{{Found: found, Healthy: found}},
			Remedies: []Remediation{{Code: ReasonReinstallController, Summary: "reinstall"},
				{Code: ReasonStripFinalizer, LastResort: true, Summary: "strip", Command: "kubectl patch"}}}
	}
	run := func(objs []runtime.Object, f Finalizer) Finalizer {
		x := kubeOnlyExplainer(objs...)
		e := &Explanation{Finalizers: []Finalizer{f}}
		x.applyOutsideClient(context.Background(), o, e)
		return e.Finalizers[0]
	}

	f := run([]runtime.Object{role("flux", updateWorkflows), bind("flux", "flux", user("flux"))}, finalizer(false))
	if len(f.Remedies) != 2 || !strings.Contains(f.Remedies[0].Summary, "User flux") || f.Remedies[1].Code != ReasonStripFinalizer {
		t.Fatalf("steps %+v, want the client outside the cluster first, then the strip", f.Remedies)
	}
	if !strings.Contains(f.Attribution, "ClusterRole flux via ClusterRoleBinding flux") || !strings.Contains(f.Remedies[1].Summary, "done with the object") {
		t.Errorf("attribution %q / strip %q", f.Attribution, f.Remedies[1].Summary)
	}

	for _, tc := range []struct {
		name string
		objs []runtime.Object
		f    Finalizer
	}{
		{"a user tied to nothing", []runtime.Object{role("ops", updateWorkflows), bind("ops", "ops", user("alice"))}, finalizer(false)},
		{"a cluster-admin-like rule", []runtime.Object{role("all", everything), bind("all", "all", user("flux"))}, finalizer(false)},
		{"a system identity", []runtime.Object{role("flux", updateWorkflows), bind("flux", "flux", user("system:flux"))}, finalizer(false)},
		{"the controller is installed", []runtime.Object{role("flux", updateWorkflows), bind("flux", "flux", user("flux"))}, finalizer(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(tc.objs, tc.f)
			if got.Remedies[0].Code != ReasonReinstallController {
				t.Errorf("steps %+v, want them unchanged", got.Remedies)
			}
		})
	}
}

func TestTiedToDomain(t *testing.T) {
	for _, tc := range []struct {
		identity, domain string
		want             bool
	}{
		{"flux", "flux-framework.readthedocs.io", true},
		{"ci:deployer@example.com", "deployer.example.io", true},
		{"alice", "flux-framework.readthedocs.io", false},
		{"github-admin", "scheduler.github.io", false},
		{"io", "flux.io", false},
	} {
		if got := tiedToDomain(tc.identity, tc.domain); got != tc.want {
			t.Errorf("tiedToDomain(%q, %q) = %v, want %v", tc.identity, tc.domain, got, tc.want)
		}
	}
}
