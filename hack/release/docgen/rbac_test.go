package main

import (
	"os"
	"path/filepath"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestReadOnlyClusterRole keeps docs/rbac/readonly-clusterrole.yaml what docs/rbac.md says it
// is: a ClusterRole that only gets and lists, and never grants Secrets.
func TestReadOnlyClusterRole(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "docs", "rbac", "readonly-clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &role); err != nil {
		t.Fatal(err)
	}
	if role.Kind != "ClusterRole" || role.Name != "kubeforensics-readonly" || len(role.Rules) == 0 {
		t.Fatalf("want ClusterRole kubeforensics-readonly with rules, got %s %s (%d rules)", role.Kind, role.Name, len(role.Rules))
	}
	for i, r := range role.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("rule %d grants %q; the role is read-only (get, list)", i, v)
			}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				if (g == "" || g == "*") && (res == "secrets" || res == "*") {
					t.Errorf("rule %d grants %q in group %q: that includes Secrets", i, res, g)
				}
			}
		}
	}
}
