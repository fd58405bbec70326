package retire

import (
	"context"
	"testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/report"
)

// factsOnly is a live cluster that answers Facts and Downstream and records what it was asked.
type factsOnly struct {
	Cluster
	asked []string
}

func (f *factsOnly) Facts(_ context.Context, r *Removal) *Live {
	f.asked = append(f.asked, r.ID)
	return &Live{Exists: true}
}

func (f *factsOnly) Downstream(string) []string { return nil }

// A live run reads the cluster it is connected to; an object a Kustomization applies to
// another cluster (spec.kubeConfig) is not read there (one of the same name here is another
// object, which a live step could then delete): it is named as not read, and the verdict
// cannot be SAFE.
func TestLiveRunDoesNotReadASpokeObjectOnTheHub(t *testing.T) {
	rs := []Removal{
		{Object: Ref{Kind: "Namespace", Name: "podinfo"}, ID: "_podinfo__Namespace", Kustomization: "production/tenants", Cluster: "kubeConfig Secret production/cluster-kubeconfig", Outcome: Pruned},
		{Object: Ref{Kind: "Namespace", Name: "apps"}, ID: "_apps__Namespace", Kustomization: "flux-system/apps", Outcome: Pruned},
	}
	k, err := NewKinds()
	if err != nil {
		t.Fatal(err)
	}
	live := &factsOnly{}
	out, gaps := judgeAll(context.Background(), rs, nil, nil, k, cluster.Target{Context: "hub"}, live, nil)
	if len(live.asked) != 1 || live.asked[0] != "_apps__Namespace" {
		t.Errorf("read live: %v; want only the hub's own Namespace apps", live.asked)
	}
	if out[0].Live != nil {
		t.Errorf("the spoke's Namespace has live facts from the hub: %+v", out[0].Live)
	}
	found := false
	for _, g := range gaps {
		if g.Op == report.OpGet && g.Reason == report.GapNotRead && g.Subject.Name == "podinfo" {
			found = true
		}
	}
	if !found {
		t.Errorf("gaps %+v: want the spoke's Namespace named as not read", gaps)
	}
}
