package flux

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/output"
)

// repoSource declares the source every ks names.
func repoSource() map[string]bool { return map[string]bool{"GitRepository/flux-system/repo": true} }

// TestCycleReportedOnce is issue 25 item 4: a dependsOn cycle of 1,000 Kustomizations was
// listed whole in a finding for each member, 76 MB of text from 247 KiB of manifests. Each
// cycle is one finding on its first member, naming its own edges only; a Kustomization behind
// a cycle is unordered but not reported again.
func TestCycleReportedOnce(t *testing.T) {
	t.Run("separate cycles, a self-dependency and a waiter behind them", func(t *testing.T) {
		c := BuildDeclared(DeclaredObjects{Sources: repoSource(), Kustomizations: objects(
			ks("a", "", "", "", "b"), ks("b", "", "", "", "a"),
			ks("c", "", "", "", "d", "b"), ks("d", "", "", "", "c"),
			ks("self", "", "", "", "self"),
			ks("behind", "", "", "", "a", "self")).Kustomizations})
		var got []string
		for _, f := range c.Findings {
			got = append(got, fmt.Sprintf("%s %s: %s", f.Kind, f.Kustomization, f.Message))
		}
		want := []string{
			"Cycle flux-system/a: dependsOn cycle through 2 Kustomization(s) (flux-system/a -> flux-system/b, flux-system/b -> flux-system/a); kustomize-controller waits on them, and on every Kustomization behind them, forever",
			"Cycle flux-system/c: dependsOn cycle through 2 Kustomization(s) (flux-system/c -> flux-system/d, flux-system/d -> flux-system/c); kustomize-controller waits on them, and on every Kustomization behind them, forever",
			"Cycle flux-system/self: dependsOn cycle through 1 Kustomization(s) (flux-system/self -> flux-system/self); kustomize-controller waits on them, and on every Kustomization behind them, forever",
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings (-want +got):\n%s", d)
		}
		if len(c.Unordered) != 6 {
			t.Errorf("unordered %v, want all six", c.Unordered)
		}
	})
	t.Run("1,000 members", func(t *testing.T) {
		const n = 1000
		objs := objects()
		for i := range n {
			name := fmt.Sprintf("tier-%04d", i)
			objs.Kustomizations = append(objs.Kustomizations, ks(name, "", "", "", fmt.Sprintf("tier-%04d", (i+1)%n)))
		}
		c := BuildDeclared(DeclaredObjects{Sources: repoSource(), Kustomizations: objs.Kustomizations})
		if len(c.Findings) != 1 || c.Findings[0].Kind != FindingCycle {
			t.Fatalf("%d findings, want the cycle once", len(c.Findings))
		}
		var b bytes.Buffer
		root := &output.Node{}
		c.AddText(root, output.Palette{})
		if err := root.Render(&b, output.Palette{}); err != nil {
			t.Fatal(err)
		}
		// Each Kustomization's line, its dependsOn and source, and its edge once in the
		// finding: a few hundred bytes each, where the old output took 76 KB each.
		if perMember := b.Len() / n; perMember > 400 {
			t.Errorf("the text takes %d bytes per member of the cycle (%d in all)", perMember, b.Len())
		}
	})
}

// TestLiveCycleOneCause is issue 25 item 4 in the live chain: every member of a cycle waits
// (DependencyNotReady, as kustomize-controller writes it), and each member's walk up its
// dependsOn ended at a different member, so a cycle of n was n root causes each listing the
// other n-1 as its blast radius — quadratic output. The cycle is one root cause.
func TestLiveCycleOneCause(t *testing.T) {
	cycleOf := func(n int) *Objects {
		objs := objects()
		for i := range n {
			dep := fmt.Sprintf("tier-%04d", (i+1)%n)
			objs.Kustomizations = append(objs.Kustomizations, ks(fmt.Sprintf("tier-%04d", i), "False", "DependencyNotReady",
				"dependency 'flux-system/"+dep+"' is not ready", dep))
		}
		return objs
	}
	t.Run("two members and a waiter behind them", func(t *testing.T) {
		objs := cycleOf(2)
		objs.Kustomizations = append(objs.Kustomizations, ks("behind", "False", "DependencyNotReady", "dependency 'flux-system/tier-0000' is not ready", "tier-0000"))
		c := Build(objs)
		if len(c.RootCauses) != 1 {
			t.Fatalf("%d root causes, want the cycle once: %+v", len(c.RootCauses), c.RootCauses)
		}
		rc := c.RootCauses[0]
		want := []string{"flux-system/behind", "flux-system/tier-0000", "flux-system/tier-0001"}
		if rc.Reason != ReasonDependencyCycle || rc.Kustomization != "flux-system/tier-0000" || !slices.Equal(rc.Tiers, want[1:]) || !slices.Equal(rc.BlastRadius, want) {
			t.Errorf("root cause = %+v, want the cycle on its first member, its members as tiers and %v frozen", rc, want)
		}
	})
	t.Run("1,000 members", func(t *testing.T) {
		const n = 1000
		c := Build(cycleOf(n))
		if len(c.RootCauses) != 1 {
			t.Errorf("%d root causes, want the cycle once", len(c.RootCauses))
		}
		var text bytes.Buffer
		root := &output.Node{}
		c.AddText(root, output.Palette{})
		if err := root.Render(&text, output.Palette{}); err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		// A member's tier line, dependsOn, source and Ready message, its edge in the finding
		// and its line in the blast radius: well under 1 KB each; the quadratic output took
		// over 30 KB each.
		for what, size := range map[string]int{"text": text.Len(), "json": len(js)} {
			if perMember := size / n; perMember > 1000 {
				t.Errorf("the %s takes %d bytes per member of the cycle (%d in all)", what, perMember, size)
			}
		}
	})
}
