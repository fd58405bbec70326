package fluxchain

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/output"
)

// PrintText draws the result for people: root causes first (with what they name and what
// they freeze), then the tiers in dependency order, then the other findings.
func PrintText(w io.Writer, res *Result, p output.Palette) error {
	root := &output.Node{}
	if len(res.Kustomizations) == 0 {
		scope := "namespace " + res.Namespace
		if res.Namespace == "" {
			scope = "any namespace"
		}
		root.Add(fmt.Sprintf("No Kustomizations in %s.", scope))
	}
	if len(res.RootCauses) > 0 {
		sec := root.Add(p.Bold(fmt.Sprintf("ROOT CAUSES (%d)", len(res.RootCauses))))
		for _, rc := range res.RootCauses {
			addRootCause(sec, res, rc, p)
		}
	}
	if len(res.Kustomizations) > 0 {
		addTiers(root.Add(p.Bold("TIERS")), res, p)
	}
	if len(res.Findings) > 0 {
		sec := root.Add(p.Bold(fmt.Sprintf("FINDINGS (%d)", len(res.Findings))))
		for _, f := range res.Findings {
			sec.Add(fmt.Sprintf("%s %s: %s", p.Warn(string(f.Kind)), f.Kustomization, f.Message))
		}
	}
	if len(res.RootCauses) > 0 && len(res.Unaffected) > 0 {
		root.Add(p.Good("UNAFFECTED: ") + strings.Join(res.Unaffected, ", "))
	}
	if len(res.Warnings) > 0 {
		sec := root.Add(p.Warn("WARNINGS (the result may be incomplete)"))
		for _, wr := range res.Warnings {
			sec.Add(wr)
		}
	}
	return root.Render(w, p)
}

// addRootCause renders one root cause, its named objects, its HelmReleases and blast radius.
func addRootCause(sec *output.Node, res *Result, rc flux.RootCause, p output.Palette) {
	tier := ""
	if n := res.Node(rc.Kustomization); n != nil {
		tier = fmt.Sprintf(" (tier %d)", n.Tier)
		if n.Tier < 0 {
			tier = " (unordered)"
		}
	}
	node := sec.Add(p.Bad(rc.Reason) + " " + p.Bold(flux.KustomizationRef(rc.Kustomization)) + tier)
	if rc.Message != "" {
		node.Add(rc.Message)
	}
	for _, e := range rc.Explanation {
		node.Add(e)
	}
	for _, bo := range rc.Objects {
		addBlockingObject(node, bo, p)
	}
	for _, hr := range rc.HelmReleases {
		addHelmRelease(node, hr, p)
	}
	br := node.Add(fmt.Sprintf("blast radius: %d Kustomization(s) frozen", len(rc.BlastRadius)))
	for _, id := range rc.BlastRadius {
		state := ""
		if n := res.Node(id); n != nil {
			state = " " + stateText(n.State, p)
		}
		br.Add(id + state)
	}
	for _, c := range rc.Commands {
		node.Add(p.Faint("$ " + c))
	}
}

// addBlockingObject renders an object a health check waited for, and why it is Terminating.
func addBlockingObject(parent *output.Node, bo flux.BlockingObject, p output.Palette) {
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
		n.Add(bo.Item.Error)
	}
	if bo.KMessage != "" {
		n.Add(bo.KMessage)
	}
	if bo.Note != "" {
		n.Add(p.Warn(bo.Note))
	}
	if bo.Terminating != nil {
		addExplanation(n, bo.Terminating, p)
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
func addHelmRelease(parent *output.Node, hr flux.HelmRelease, p output.Palette) {
	state := "no Ready condition"
	if hr.Ready != nil {
		state = fmt.Sprintf("Ready=%s %s", hr.Ready.Status, hr.Ready.Reason)
	}
	n := parent.Add(fmt.Sprintf("HelmRelease %s/%s: %s (timeout %s)", hr.Namespace, hr.Name, p.Bad(state), hr.Timeout))
	if hr.Ready != nil && hr.Ready.Message != "" {
		n.Add(hr.Ready.Message)
	}
	if hr.OutlivesTier {
		n.Add(p.Warn("its timeout is longer than the tier's: the Kustomization's health check gives up before helm-controller does"))
	}
}

// addTiers renders each tier and its Kustomizations in dependency order.
func addTiers(sec *output.Node, res *Result, p output.Palette) {
	for i, tier := range res.Tiers {
		if len(tier) == 0 {
			continue
		}
		t := sec.Add(fmt.Sprintf("tier %d", i))
		for _, id := range tier {
			addNodeLine(t, res.Node(id), p)
		}
	}
	if len(res.Unordered) > 0 {
		t := sec.Add(p.Bad("unordered (cycle)"))
		for _, id := range res.Unordered {
			addNodeLine(t, res.Node(id), p)
		}
	}
}

// addNodeLine renders one Kustomization: state, gating, source revision and dependencies.
func addNodeLine(parent *output.Node, n *flux.Node, p output.Palette) {
	if n == nil {
		return
	}
	gate := "wait=false"
	if n.Wait {
		gate = "wait=true"
	}
	line := fmt.Sprintf("%s %s path=%s %s timeout=%s", n.ID, stateText(n.State, p), n.Path, gate, n.Timeout)
	if n.Suspend {
		line += " " + p.Warn("suspended")
	}
	c := parent.Add(line)
	if len(n.DependsOn) > 0 {
		c.Add("dependsOn: " + strings.Join(n.DependsOn, ", "))
	}
	src := fmt.Sprintf("source %s %s/%s", n.Source.Kind, n.Source.Namespace, n.Source.Name)
	switch {
	case n.Source.Unread:
		src += " " + p.Warn("(could not be read)")
	case !n.Source.Found:
		src += " " + p.Bad("not found")
	case n.RevisionLag:
		src += fmt.Sprintf(" at %s, applied %s %s", n.Source.Revision, orNone(n.LastApplied), p.Warn("(lagging)"))
	case n.Source.Revision != "":
		src += " at " + n.Source.Revision
	}
	c.Add(src)
	if n.State != flux.Ready && n.Ready != nil && n.Ready.Reason != "" {
		c.Add(n.Ready.Reason + ": " + n.Ready.Message)
	}
}

// stateText colours a state.
func stateText(s flux.State, p output.Palette) string {
	switch s {
	case flux.Ready:
		return p.Good(string(s))
	case flux.Failing:
		return p.Bad(string(s))
	}
	return p.Warn(string(s))
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
