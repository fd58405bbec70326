package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func deletedNamespace(name string, deleting bool) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if deleting {
		now := metav1.Now()
		ns.DeletionTimestamp, ns.Finalizers = &now, []string{"kubernetes"}
	}
	return ns
}

// An operator whose rights went with the namespace it ran in (grafana-operator#79: its Role,
// ServiceAccount and Deployment all in the project deleted) leaves nothing to name; "reinstall
// the controller" cannot mean into that namespace. In a live namespace, or when a remover is
// named, the steps stay.
func TestReinstallRefusedForAnUnnamedRemover(t *testing.T) {
	steps := func() []Remediation {
		return []Remediation{
			{Code: ReasonReinstallController, Summary: "Reinstall the controller (the controller of the finalizer's domain grafana.cleanup); it then removes the finalizer itself."},
			{Code: ReasonStripFinalizer, Summary: "Only if the controller is gone for good: remove finalizer grafana.cleanup by hand.", LastResort: true},
		}
	}
	sa := ObjectRef{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespace: "jorge-prom", Name: "grafana-operator"}
	for _, tc := range []struct {
		name        string
		deleting    bool
		controllers []Controller
		refused     bool
	}{
		{"nothing named, namespace being deleted", true, []Controller{{}}, true},
		{"nothing named, live namespace", false, nil, false},
		{"a service account named", true, []Controller{{Object: sa}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer([]runtime.Object{deletedNamespace("jorge-prom", tc.deleting)})
			f := Finalizer{Name: "grafana.cleanup", Controllers: tc.controllers, Remedies: steps()}
			x.reinstallRefusedUnknown(context.Background(), "jorge-prom", &f)
			if len(f.Unchecked) > 0 {
				t.Fatalf("unchecked: %v", f.Unchecked)
			}
			if got := f.Remedies[0].Code != ReasonReinstallController; got != tc.refused {
				t.Fatalf("steps = %+v, want the reinstall refused: %v", f.Remedies, tc.refused)
			}
			if tc.refused && (!strings.Contains(f.Remedies[0].Summary, "namespaces/jorge-prom is being deleted") ||
				!strings.Contains(f.Remedies[1].Summary, "namespaces/jorge-prom, which is being deleted")) {
				t.Errorf("steps = %+v", f.Remedies)
			}
		})
	}
}

// The cluster-wide RBAC an operator made for its agents (datadog-operator#654, the LokiStack
// bindings of cluster-logging-operator#1992) outlives their namespace: the strip names the
// bindings whose every subject is a service account of the namespace being deleted, but not the
// remover's own, one that binds elsewhere too, or Kubernetes' bootstrap policy.
func TestLeftNamespaceRBACNamesBindingsOfTheDeletedNamespace(t *testing.T) {
	crb := func(name, role string, labels map[string]string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: role}, Subjects: subjects}
	}
	sa := func(ns, name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "ServiceAccount", Namespace: ns, Name: name}
	}
	objs := func(deleting bool) []runtime.Object {
		return []runtime.Object{deletedNamespace("datadog", deleting),
			crb("datadog-operator", "datadog-operator", nil, sa("datadog", "datadog-operator")),
			crb("datadog-cluster-agent", "datadog-cluster-agent", nil, sa("datadog", "datadog-cluster-agent")),
			crb("shared-reader", "view", nil, sa("datadog", "datadog-agent"), sa("monitoring", "prometheus")),
			crb("system:ns-bootstrap", "system:basic-user", map[string]string{bootstrapLabel: "rbac-defaults"}, sa("datadog", "default")),
		}
	}
	operator := Controller{Object: ObjectRef{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespace: "datadog", Name: "datadog-operator"}}
	for _, tc := range []struct {
		name     string
		deleting bool
		want     bool
	}{{"namespace being deleted", true, true}, {"live namespace", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(objs(tc.deleting))
			f := Finalizer{Name: "finalizer.agent.datadoghq.com", Controllers: []Controller{operator},
				Remedies: []Remediation{{Code: ReasonStripFinalizer, Summary: "Remove finalizer finalizer.agent.datadoghq.com by hand.", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}}}
			x.leftNamespaceRBAC(context.Background(), "datadog", &f)
			if len(f.Unchecked) > 0 {
				t.Fatalf("unchecked: %v", f.Unchecked)
			}
			s := f.Remedies[0].Summary
			named := strings.Contains(s, "clusterrolebindings.rbac.authorization.k8s.io/datadog-cluster-agent (of clusterroles.rbac.authorization.k8s.io/datadog-cluster-agent)")
			if named != tc.want || tc.want && !strings.Contains(f.Remedies[0].Cost, "clusterrolebindings.rbac.authorization.k8s.io/datadog-cluster-agent") {
				t.Fatalf("strip = %+v, want the agent's binding named: %v", f.Remedies[0], tc.want)
			}
			for _, never := range []string{"/datadog-operator", "shared-reader", "system:ns-bootstrap"} {
				if strings.Contains(s, never) {
					t.Errorf("strip names %s: %q", never, s)
				}
			}
		})
	}
}
