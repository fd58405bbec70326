package flux

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/output"
)

// AddText draws the chain under root for people: root causes first (with what they name and
// what they freeze), then the tiers in dependency order, then the other findings and, when
// something failed, the Kustomizations nothing reaches. The tree only renders the chain; it
// stays a Chain for the structured outputs.
func (c *Chain) AddText(root *output.Node, p output.Palette) {
	drawn, byID := explained{}, c.index()
	if len(c.RootCauses) > 0 {
		sec := root.Add(p.Bold(fmt.Sprintf("ROOT CAUSES (%d)", len(c.RootCauses))))
		for _, rc := range c.RootCauses {
			addRootCause(sec, rc, byID, p, drawn)
		}
	}
	if len(c.Progressing) > 0 {
		sec := root.Add(p.Bold(fmt.Sprintf("PROGRESSING (%d)", len(c.Progressing))))
		for _, rc := range c.Progressing {
			addRootCause(sec, rc, byID, p, drawn)
		}
	}
	if len(c.Kustomizations) > 0 {
		c.addTiers(root.Add(p.Bold("TIERS")), byID, p, drawn)
	}
	if len(c.Findings) > 0 {
		sec := root.Add(p.Bold(fmt.Sprintf("FINDINGS (%d)", len(c.Findings))))
		for _, f := range c.Findings {
			sec.AddMessage(fmt.Sprintf("%s %s: ", p.Warn(string(f.Kind)), f.Kustomization), f.Message)
		}
	}
	if len(c.RootCauses) > 0 && len(c.Unaffected) > 0 {
		root.Add(p.Good("UNAFFECTED: ") + strings.Join(c.Unaffected, ", "))
	}
}

// explained holds the objects whose why-terminating explanation the tree has drawn, by their
// fully qualified name: an object can be named by a health check, be a failing tier's
// HelmRelease and sit under its tier, and its explanation is drawn once, where it first
// appears.
type explained map[string]bool

// addExplanation draws e under parent, or, when the tree has drawn it already, says so.
func (drawn explained) addExplanation(parent *output.Node, object string, e *finalizers.Explanation, p output.Palette) {
	if drawn[object] {
		parent.Add(p.Bad("Terminating") + ": explained above")
		return
	}
	drawn[object] = true
	addExplanation(parent, e, p)
}

// addRootCause renders one root cause, its named objects, its HelmReleases and blast radius.
func addRootCause(sec *output.Node, rc RootCause, byID map[string]*Node, p output.Palette, drawn explained) {
	head := KustomizationRef(rc.Kustomization)
	if rc.Object != "" {
		head = rc.Object
	}
	tier := ""
	if n := byID[rc.Kustomization]; n != nil {
		tier = fmt.Sprintf(" (tier %d)", n.Tier)
		if n.Tier < 0 {
			tier = " (unordered)"
		}
	}
	if rc.AppliedBy != "" {
		tier = " (applied by " + rc.AppliedBy + ")"
	}
	reason := p.Bad(rc.Reason)
	if inProgress(rc.Progress) {
		reason = p.Warn(rc.Reason)
	}
	node := sec.Add(reason + " " + p.Bold(head) + tier)
	if rc.Message != "" {
		node.AddMessage("", rc.Message)
	}
	if rc.Progress != nil && rc.Object == "" {
		node.Add(progressText(rc.Progress)) // a HelmRelease's line says it
	}
	for _, e := range rc.Explanation {
		node.Add(e)
	}
	for _, bo := range rc.Objects {
		addBlockingObject(node, bo, p, drawn)
	}
	for _, hr := range rc.HelmReleases {
		addHelmRelease(node, hr, p, drawn)
	}
	if len(rc.Waiters) > 0 {
		waiting := node.Add(fmt.Sprintf("waiting on it: %d object(s) that reference it", len(rc.Waiters)))
		for _, ref := range rc.Waiters {
			waiting.Add(ref)
		}
	}
	if len(rc.HeldBack) > 0 {
		held := node.Add(fmt.Sprintf("held back: %d HelmRelease(s) wait on it (dependsOn, chart source)", len(rc.HeldBack)))
		for _, id := range rc.HeldBack {
			held.Add(id)
		}
	}
	addBlastRadius(node, rc, byID, p)
	for _, cmd := range rc.Commands {
		node.Add(p.Faint("$ " + cmd))
	}
}

// addBlastRadius lists what a root cause freezes; of an object several tiers fail on, those
// tiers are marked as failing on it directly, not as frozen behind one another.
func addBlastRadius(node *output.Node, rc RootCause, byID map[string]*Node, p output.Palette) {
	head := fmt.Sprintf("blast radius: %d Kustomization(s) frozen", len(rc.BlastRadius))
	direct := " (fails on it directly)"
	switch {
	case rc.Object != "":
		head = fmt.Sprintf("blast radius: %d Kustomization(s), %d failing on it directly", len(rc.BlastRadius), len(rc.Tiers))
	case len(rc.Tiers) > 0:
		head = fmt.Sprintf("blast radius: %d Kustomization(s), %d in the cycle", len(rc.BlastRadius), len(rc.Tiers))
		direct = " (in the cycle)"
	}
	br := node.Add(head)
	tiers := make(map[string]bool, len(rc.Tiers))
	for _, id := range rc.Tiers {
		tiers[id] = true
	}
	for _, id := range rc.BlastRadius {
		state := ""
		if n := byID[id]; n != nil {
			state = " " + stateText(n.State, p)
		}
		if tiers[id] {
			state += direct
		}
		br.Add(id + state)
	}
}

// addBlockingObject renders an object a health check waited for, and why it is Terminating.
func addBlockingObject(parent *output.Node, bo BlockingObject, p output.Palette, drawn explained) {
	name := bo.Item.Ref()
	if bo.Object != nil {
		name = bo.Object.String()
	}
	line := name
	switch {
	case bo.Item.Status != "" && (bo.KStatus == "" || bo.KStatus == bo.Item.Status):
		line += fmt.Sprintf(" — %s, as the health check saw it", p.Bad(bo.Item.Status))
	case bo.Item.Status != "":
		line += fmt.Sprintf(" — the health check saw %s, now %s", p.Bad(bo.Item.Status), bo.KStatus)
	case bo.KStatus != "":
		line += " — now " + bo.KStatus
	}
	n := parent.Add(line)
	if bo.Item.Error != "" {
		n.AddMessage("", bo.Item.Error)
	}
	if bo.KMessage != "" {
		n.AddMessage("", bo.KMessage)
	}
	for _, cd := range bo.Conditions {
		n.AddMessage(fmt.Sprintf("%s=%s %s: ", cd.Type, cd.Status, cd.Reason), cd.Message)
	}
	if bo.Note != "" {
		n.Add(p.Warn(bo.Note))
	}
	if bo.Terminating != nil {
		drawn.addExplanation(n, name, bo.Terminating, p)
	}
	if bo.Command != "" {
		n.Add(p.Faint("$ " + bo.Command))
	}
}

// addExplanation renders a why-terminating explanation: each finalizer, what holds it, and
// the first remedy.
func addExplanation(parent *output.Node, e *finalizers.Explanation, p output.Palette) {
	head := "Terminating"
	if e.TerminatingFor != "" {
		head += " for " + e.TerminatingFor
	}
	n := parent.Add(p.Bad(head))
	if e.Pending != "" {
		n.Add(e.Pending)
	}
	for _, f := range e.Finalizers {
		fn := n.Add(fmt.Sprintf("finalizer %s: removed by %s once %s", p.Bold(f.Name), f.RemovedBy, f.WaitsFor))
		for _, b := range f.Blockers {
			bn := fn.Add(fmt.Sprintf("held by %s: %s", b.Object, b.Reason))
			for _, o := range b.OwnerChain {
				bn.Add("owned by " + o.String())
			}
			if b.GitOps != nil {
				bn.Add("applied by " + b.GitOps.String())
			}
		}
		for _, r := range f.Remedies {
			rn := fn.Add("remedy: " + r.Summary)
			if r.Command != "" {
				rn.Add(p.Faint("$ " + r.Command))
			}
			if r.Cost != "" {
				rn.Add("cost: " + r.Cost)
			}
		}
	}
}

// addHelmRelease renders a HelmRelease of a failing tier.
func addHelmRelease(parent *output.Node, hr HelmRelease, p output.Palette, drawn explained) {
	state := "no Ready condition"
	if hr.Ready != nil {
		state = fmt.Sprintf("Ready=%s %s", hr.Ready.Status, hr.Ready.Reason)
	}
	n := parent.Add(fmt.Sprintf("HelmRelease %s/%s: %s (timeout %s)", hr.Namespace, hr.Name, p.Bad(state), hr.Timeout))
	if hr.Ready != nil && hr.Ready.Message != "" {
		n.AddMessage("", hr.Ready.Message)
	}
	if hr.Release != nil {
		n.Add(p.Bad(hr.Release.Kind) + ": " + hr.Release.Message)
	}
	if hr.Progress != nil {
		n.Add(progressText(hr.Progress))
	}
	if hr.OutlivesTier {
		n.Add(p.Warn("its timeout is longer than the tier's: the Kustomization's health check gives up before helm-controller does"))
	}
	if hr.Terminating != nil {
		drawn.addExplanation(n, helmReleaseRef(hr.Namespace, hr.Name), hr.Terminating, p)
	}
}

// addTiers renders each tier and its Kustomizations in dependency order.
func (c *Chain) addTiers(sec *output.Node, byID map[string]*Node, p output.Palette, drawn explained) {
	for i, tier := range c.Tiers {
		if len(tier) == 0 {
			continue
		}
		t := sec.Add(fmt.Sprintf("tier %d", i))
		for _, id := range tier {
			addNodeLine(t, byID[id], p, drawn)
		}
	}
	if len(c.Unordered) > 0 {
		t := sec.Add(p.Bad("unordered (cycle)"))
		for _, id := range c.Unordered {
			addNodeLine(t, byID[id], p, drawn)
		}
	}
}

// addNodeLine renders one Kustomization: state, gating, source revision and dependencies.
func addNodeLine(parent *output.Node, n *Node, p output.Palette, drawn explained) {
	if n == nil {
		return
	}
	gate := "wait=false"
	if n.Wait {
		gate = "wait=true"
	}
	line := fmt.Sprintf("%s %s path=%s %s timeout=%s", n.ID, stateText(n.State, p), n.Path, gate, n.Timeout)
	if n.Suspend {
		line += " " + p.Warn(suspendedWhere(n))
	}
	c := parent.Add(line)
	if len(n.DependsOn) > 0 {
		c.Add("dependsOn: " + strings.Join(n.DependsOn, ", "))
	}
	for _, d := range n.Inherited {
		c.Add("waits for: " + d.ID + " (" + d.Via + " waits for it before creating this)")
	}
	src := fmt.Sprintf("source %s %s/%s", n.Source.Kind, n.Source.Namespace, n.Source.Name)
	switch {
	case n.Source.Unread:
		src += " " + p.Warn("(could not be read)")
	case !n.Source.Found:
		src += " " + p.Bad("not found")
	case n.Applying != "":
		src += fmt.Sprintf(" at %s, applying it (applied %s)", n.Source.Revision, orNothing(n.LastApplied))
	case n.RevisionLag:
		src += fmt.Sprintf(" at %s, applied %s %s", n.Source.Revision, orNothing(n.LastApplied), p.Warn("(lagging)"))
	case n.Source.Revision != "":
		src += " at " + n.Source.Revision
	}
	c.Add(src)
	if n.State != Ready && n.Ready != nil && n.Ready.Reason != "" {
		c.AddMessage(n.Ready.Reason+": ", n.Ready.Message)
	}
	if n.Terminating != nil {
		drawn.addExplanation(c, kustomizationRef(n.ID), n.Terminating, p)
	}
	for _, hr := range n.HelmReleases {
		if hr.Deleting {
			h := c.Add(fmt.Sprintf("HelmRelease %s/%s %s", hr.Namespace, hr.Name, p.Bad(string(Terminating))))
			if hr.Terminating != nil {
				drawn.addExplanation(h, helmReleaseRef(hr.Namespace, hr.Name), hr.Terminating, p)
			}
		}
	}
}

// progressText says since when a reconciliation runs and how much of its timeout is left.
func progressText(pr *Progress) string {
	if pr.Overdue {
		return fmt.Sprintf("reconciling since %s, past its timeout of %s", pr.Since, pr.Timeout)
	}
	return fmt.Sprintf("reconciling since %s: %s left of its timeout of %s", pr.Since, pr.Remaining, pr.Timeout)
}

// stateText colours a state.
func stateText(s State, p output.Palette) string {
	switch s {
	case Ready:
		return p.Good(string(s))
	case Failing, Terminating:
		return p.Bad(string(s))
	}
	return p.Warn(string(s))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
