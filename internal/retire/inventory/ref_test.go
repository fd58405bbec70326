package inventory

import "testing"

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{{"headlamp_headlamp__PersistentVolumeClaim", true}, {"_headlamp__Namespace", true}, {"a_b_apps_Deployment", true}, {"bad", false}, {"a_b_c", false}, {"a__apps_", false},
		{"_system__controller__foo_rbac.authorization.k8s.io_ClusterRole", true}, {"kube-system_system__leader-locking_rbac.authorization.k8s.io_Role", true}} {
		t.Run(tc.id, func(t *testing.T) {
			r, err := ParseID(tc.id)
			if (err == nil) != tc.ok || (tc.ok && r.ID() != tc.id) {
				t.Fatalf("ParseID(%q) = %+v, %v", tc.id, r, err)
			}
		})
	}
}
