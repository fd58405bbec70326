package kinds

import (
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
)

func TestParseObjectArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want ObjectArg
	}{
		{"type name", []string{"pvc", "headlamp"}, ObjectArg{Type: "pvc", Name: "headlamp"}},
		{"type/name", []string{"deploy/headlamp"}, ObjectArg{Type: "deploy", Name: "headlamp"}},
		{"type only", []string{"pvc"}, ObjectArg{Type: "pvc"}},
		{"qualified", []string{"backups.velero.io/nightly"}, ObjectArg{Type: "backups.velero.io", Name: "nightly"}},
		{"inventory id", []string{"headlamp_headlamp__PersistentVolumeClaim"}, ObjectArg{Name: "headlamp", Namespace: "headlamp", Kind: "PersistentVolumeClaim", FromInventory: true}},
		{"inventory id with group", []string{"apps_web_apps_Deployment"}, ObjectArg{Name: "web", Namespace: "apps", Group: "apps", Kind: "Deployment", FromInventory: true}},
		{"cluster-scoped rbac with colon", []string{"_system__controller__x_rbac.authorization.k8s.io_ClusterRole"}, ObjectArg{Name: "system:controller:x", Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", FromInventory: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseObjectArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseObjectArgsRejects(t *testing.T) {
	for _, args := range [][]string{{}, {"a", "b", "c"}, {"/x"}, {"pvc/"}, {"a/b/c"}, {"pvc/x", "y"}, {"a_b"}, {"", "x"}} {
		if _, err := ParseObjectArgs(args); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("ParseObjectArgs(%q) code = %v, want usage", args, exitcode.Of(err))
		}
	}
}
