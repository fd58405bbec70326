package finalizers

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A running remover whose install's cluster-wide binding names the same-named service account
// of the same workload installed in another namespace, and not its own, lost that binding to
// the later install: the first fix gives it back (a patch adding its service account to the
// binding's subjects). A binding that also names the remover, one whose other namespace runs
// no such workload, or one of another service account's name is no evidence.
func TestSharedBindingTaken(t *testing.T) {
	const sa = "op-manager"
	op := func(ns string) runtime.Object {
		d := deployment(ns, "op-controller-manager", 1)
		d.Spec.Template.Spec.ServiceAccountName = sa
		return d
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "op-manager-role"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, Verbs: []string{"create", "delete"}}}}
	binding := func(subjects ...rbacv1.Subject) runtime.Object {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "op-manager-clusterrolebinding"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "op-manager-role"}, Subjects: subjects}
	}
	in := func(ns, name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}
	}
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want bool
	}{
		{"taken by the install in team-b", []runtime.Object{op("team-a"), op("team-b"), role, binding(in("team-b", sa))}, true},
		{"names the remover too", []runtime.Object{op("team-a"), op("team-b"), role, binding(in("team-b", sa), in("team-a", sa))}, false},
		{"no such workload in team-b", []runtime.Object{op("team-a"), role, binding(in("team-b", sa))}, false},
		{"another account's name", []runtime.Object{op("team-a"), op("team-b"), role, binding(in("team-b", "someone-else"))}, false},
		{"every account of the cluster", []runtime.Object{op("team-a"), op("team-b"), role, binding(rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts"})}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.objs)
			ws, err := x.workloads(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var remover Controller
			for _, w := range ws {
				if w.ref.Namespace == "team-a" {
					remover = *w.controller()
				}
			}
			ev, reasons, fixes, gaps := x.sharedBindingTaken(context.Background(), remover)
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			if !tc.want {
				if len(fixes) > 0 || len(ev) > 0 || len(reasons) > 0 {
					t.Errorf("no evidence expected, got %q, fixes %+v", ev, fixes)
				}
				return
			}
			if len(fixes) != 1 || fixes[0].Code != ReasonRestoreRemoverBinding {
				t.Fatalf("fixes %+v, want one %s", fixes, ReasonRestoreRemoverBinding)
			}
			for _, want := range []string{"clusterrolebindings.rbac.authorization.k8s.io/op-manager-clusterrolebinding", "serviceaccounts/op-manager -n team-b", "deployments.apps/op-controller-manager -n team-b", "create, delete on clusterroles.rbac.authorization.k8s.io"} {
				if !strings.Contains(ev[0], want) {
					t.Errorf("evidence %q does not name %q", ev[0], want)
				}
			}
			if c := fixes[0].Command; !strings.Contains(c, "patch") || !strings.Contains(c, `"namespace":"team-a"`) || !strings.Contains(c, "op-manager-clusterrolebinding") {
				t.Errorf("command %q does not add team-a's service account to the binding", c)
			}
		})
	}
}
