package finalizers

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestNamesFinalizers(t *testing.T) {
	rb := &rbacObjects{clusterRoles: map[string][]rbacv1.PolicyRule{
		"controller": {{APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows", "workflows/finalizers"}, Verbs: []string{"get", "update", "patch"}}},
		"ui":         {{APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}, Verbs: []string{"get", "update", "patch"}}},
		"wildcard":   {{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}},
		"readonly":   {{APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows/finalizers"}, Verbs: []string{"get"}}},
	}, roles: map[string][]rbacv1.PolicyRule{}}
	for _, name := range []string{"controller", "ui", "wildcard", "readonly"} {
		rb.crbs = append(rb.crbs, rbacv1.ClusterRoleBinding{RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: name},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "argo", Name: name}}})
	}
	for sa, want := range map[string]bool{"controller": true, "ui": false, "wildcard": false, "readonly": false} {
		if got := namesFinalizers(rb, "argo", sa, "argoproj.io", "workflows"); got != want {
			t.Errorf("namesFinalizers(%s) = %v, want %v", sa, got, want)
		}
	}
}
