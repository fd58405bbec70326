package retire_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/retire"
)

// TestMoveIsWithinOneCluster: a hub's Kustomizations apply the same objects to several spoke
// clusters through spec.kubeConfig (fluxcd/flux2-hub-spoke-example). Decommissioning one spoke
// deletes its Kustomizations: the Namespace they applied there is pruned on that spoke, not
// moved to the Kustomization that applies the same Namespace to another spoke. Between two
// Kustomizations of the same cluster it is still a move.
func TestMoveIsWithinOneCluster(t *testing.T) {
	ns := objects(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: podinfo}")
	spoke := func(name, cluster string) retire.Kustomization {
		return retire.Kustomization{Namespace: name, Name: "tenants", Path: "./deploy/tenants", Prune: true, Cluster: cluster}
	}
	for _, tc := range []struct {
		name        string
		from, to    retire.Kustomization
		outcome     retire.Outcome
		reason      retire.Reason
		wantMovedTo string
	}{
		{name: "another spoke", from: spoke("production", "kubeConfig Secret production/cluster-kubeconfig"), to: spoke("staging", "kubeConfig Secret staging/cluster-kubeconfig"),
			outcome: retire.Pruned, reason: retire.ReasonKustomizationDeletedPersistent},
		{name: "the hub itself", from: spoke("production", "kubeConfig Secret production/cluster-kubeconfig"), to: spoke("staging", ""),
			outcome: retire.Pruned, reason: retire.ReasonKustomizationDeletedPersistent},
		{name: "the same cluster", from: spoke("production", ""), to: spoke("staging", ""),
			outcome: retire.Moved, reason: retire.ReasonMovePersistent, wantMovedTo: "staging/tenants"},
		{name: "the same kubeConfig", from: spoke("production", "kubeConfig Secret fleet/prod"), to: spoke("staging", "kubeConfig Secret fleet/prod"),
			outcome: retire.Moved, reason: retire.ReasonMovePersistent, wantMovedTo: "staging/tenants"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			units := []retire.Unit{
				{Kustomization: tc.from, Base: ns, Removed: true},
				{Kustomization: tc.to, Base: ns, Candidate: ns},
			}
			rs, _ := retire.Diff(units)
			if len(rs) != 1 {
				t.Fatalf("removals %+v: want one", rs)
			}
			k, err := retire.NewKinds()
			if err != nil {
				t.Fatal(err)
			}
			retire.Judge(rs, units, k)
			r := rs[0]
			if r.Outcome != tc.outcome || !r.Unsafe || r.Reason != tc.reason || r.MovedTo != tc.wantMovedTo {
				t.Errorf("outcome %s, unsafe %v, reason %s, moved to %q; want %s, UNSAFE, %s, %q", r.Outcome, r.Unsafe, r.Reason, r.MovedTo, tc.outcome, tc.reason, tc.wantMovedTo)
			}
		})
	}
}
