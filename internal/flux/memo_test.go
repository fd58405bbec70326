package flux

import (
	"fmt"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
)

// waitingLine is a Kustomization that fails on its own and n waiters in a line behind it, each
// waiting on the one before (the shape of a long platform -> infra -> apps chain).
func waitingLine(n int) *Objects {
	list := []kustomizev1.Kustomization{ks("w-00000", "False", "BuildFailed", "kustomize build failed")}
	for i := 1; i <= n; i++ {
		prev := fmt.Sprintf("w-%05d", i-1)
		list = append(list, ks(fmt.Sprintf("w-%05d", i), "False", "DependencyNotReady", "dependency 'flux-system/"+prev+"' is not ready", prev))
	}
	return objects(list...)
}

// TestWalkIsLinear: every waiter of a line behind one cause is walked once. Walking up again
// from each waiter behind it walked n(n+1)/2 waiters: 500,500 for a line of 1,000.
func TestWalkIsLinear(t *testing.T) {
	for _, n := range []int{1, 10, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			objs := waitingLine(n)
			nodes := map[string]*Node{}
			byID := map[string]*kustomizev1.Kustomization{}
			for i := range objs.Kustomizations {
				nd := newNode(&objs.Kustomizations[i], objs, byID, time.Time{})
				nodes[nd.ID] = nd
			}
			cs := newCauses(nodes, order(nodes), &helmIndex{byID: map[string]*helmEntry{}})
			rcs, stale := cs.find()
			if len(rcs) != 1 || rcs[0].Kustomization != "flux-system/w-00000" || len(rcs[0].BlastRadius) != n || len(stale) != 0 {
				t.Fatalf("%d root causes (%+v), %d stale waits; want w-00000 freezing %d", len(rcs), rcs, len(stale), n)
			}
			if cs.walks != n {
				t.Errorf("%d walks for %d waiters, want one each", cs.walks, n)
			}
		})
	}
}

// TestWalkDiamond: a waiter reached twice through a diamond (d waits on b and c, both wait on
// a) keeps what it found: a waiter skipped as already seen must not be remembered as blocked
// by nothing (a stale wait).
func TestWalkDiamond(t *testing.T) {
	c := Build(objects(
		ks("a", "False", "BuildFailed", "kustomize build failed"),
		ks("b", "False", "DependencyNotReady", "dependency 'flux-system/a' is not ready", "a"),
		ks("c", "False", "DependencyNotReady", "dependency 'flux-system/a' is not ready", "a"),
		ks("d", "False", "DependencyNotReady", "dependency 'flux-system/b' is not ready", "b", "c"),
	))
	if len(c.RootCauses) != 1 || strings.Join(c.RootCauses[0].BlastRadius, ",") != "flux-system/b,flux-system/c,flux-system/d" {
		t.Errorf("root causes %+v, want a freezing b, c and d", c.RootCauses)
	}
	for _, f := range c.Findings {
		if f.Kind == FindingStaleWait {
			t.Errorf("stale wait %+v: every waiter is behind a", f)
		}
	}
}

// TestRevisionLagExplainedOnce: a line of waiters behind a tier whose dependent waits for its
// revision names that dependent once; walking up again from each waiter behind it appended the
// same sentence once per waiter.
func TestRevisionLagExplainedOnce(t *testing.T) {
	base := ks("base", "True", "ReconciliationSucceeded", "")
	base.Status.LastAppliedRevision = "main@sha1:0"
	c := Build(objects(base,
		ks("infra", "False", "DependencyNotReady", "dependency 'flux-system/base' revision is not up to date", "base"),
		ks("apps", "False", "DependencyNotReady", "dependency 'flux-system/infra' is not ready", "infra"),
		ks("web", "False", "DependencyNotReady", "dependency 'flux-system/apps' is not ready", "apps"),
	))
	if len(c.RootCauses) != 1 || c.RootCauses[0].Reason != ReasonRevisionLag {
		t.Fatalf("root causes %+v, want base's revision lag", c.RootCauses)
	}
	if got := c.RootCauses[0].Explanation; len(got) != 1 {
		t.Errorf("explanation %q, want infra named once", got)
	}
}
