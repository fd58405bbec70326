package retire_test

import (
	"strings"
	"testing"

	kfcluster "github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/retire"
)

// TestPlanOnASpokeCluster: a hub's Kustomization applies a Namespace to a spoke through
// spec.kubeConfig (fluxcd/flux2-hub-spoke-example), and decommissioning the spoke deletes it.
// Every printed command on the Namespace carries a named placeholder kubeconfig, never the
// hub's connection (a Namespace of that name on the hub is another object); commands on the
// Kustomization stay on the hub; the first stage names the kubeConfig Secret. The same
// removal on the hub itself keeps the hub's flags throughout.
func TestPlanOnASpokeCluster(t *testing.T) {
	ns := objects(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: podinfo}")
	hub := kfcluster.Target{Flags: []string{"--kubeconfig=/home/me/hub.yaml", "--context=hub"}}
	for _, tc := range []struct {
		name, cluster string
		remote        bool
	}{
		{"a spoke", "kubeConfig Secret production/cluster-kubeconfig", true},
		{"the hub", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := []retire.Unit{{Kustomization: retire.Kustomization{Namespace: "production", Name: "tenants", Path: "./deploy/tenants", Prune: true, Cluster: tc.cluster}, Base: ns, Removed: true}}
			rs, _ := retire.Diff(units)
			k, err := retire.NewKinds()
			if err != nil {
				t.Fatal(err)
			}
			retire.Judge(rs, units, k)
			if len(rs) != 1 || !rs[0].Unsafe {
				t.Fatalf("removals %+v: want one UNSAFE", rs)
			}
			r := &rs[0]
			p := retire.Planner{Target: hub}
			p.Plan(r)
			if len(r.Plan) != 4 {
				t.Fatalf("plan %+v: want four stages", r.Plan)
			}
			var onObject, onKustomization []string
			for _, s := range r.Plan {
				for _, c := range append(append([]string{}, s.Commands...), s.Check) {
					switch {
					case strings.Contains(c, "namespace podinfo") || strings.Contains(c, "-n podinfo"):
						onObject = append(onObject, c)
					case strings.Contains(c, "kustomization tenants"):
						onKustomization = append(onKustomization, c)
					}
				}
			}
			if len(onObject) != 4 || len(onKustomization) != 2 {
				t.Fatalf("commands on the Namespace %q, on the Kustomization %q", onObject, onKustomization)
			}
			objectFlags := "kubectl --kubeconfig=/home/me/hub.yaml --context=hub "
			if tc.remote {
				objectFlags = "kubectl --kubeconfig=REMOTE_KUBECONFIG "
			}
			for _, c := range onObject {
				if !strings.HasPrefix(c, objectFlags) || (tc.remote && strings.Contains(c, "hub")) {
					t.Errorf("a command on the Namespace: %s; want it to start %q", c, objectFlags)
				}
			}
			for _, c := range onKustomization {
				if !strings.HasPrefix(c, "kubectl --kubeconfig=/home/me/hub.yaml --context=hub ") {
					t.Errorf("a command on the Kustomization left the hub: %s", c)
				}
			}
			said := strings.Contains(r.Plan[0].Do[0], "kubeConfig Secret production/cluster-kubeconfig") && strings.Contains(r.Plan[0].Do[0], "REMOTE_KUBECONFIG, a placeholder")
			if said != tc.remote {
				t.Errorf("first step %q: naming the kubeConfig Secret and the placeholder %v, want %v", r.Plan[0].Do[0], said, tc.remote)
			}
			if del := p.DeleteCommand(r); !strings.HasPrefix(del, objectFlags) {
				t.Errorf("delete command %s", del)
			}
		})
	}
}
