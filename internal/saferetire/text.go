package saferetire

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/retire"
)

// PrintText draws the result, escaped: one branch per Kustomization with removals, each removal
// with its outcome, why, what the cluster says and its plan; then what could not be read; then
// the verdict. The command's text output and the MCP server's both come from it.
func PrintText(w io.Writer, r *Result, p output.Palette) error {
	root := &output.Node{}
	if r.Mode == "orphans" {
		addOrphans(root, r, p)
	} else {
		addRemovals(root, r, p)
	}
	for _, a := range r.Actions {
		line := actionWord(a.Outcome, p) + " " + a.Step
		if a.Command != "" {
			line += ": " + a.Command
		}
		n := root.Add(line)
		if a.Detail != "" {
			n.AddMessage("", a.Detail)
		}
	}
	for _, g := range r.Unchecked {
		root.AddMessage(p.Warn("warning: "), g.String())
	}
	for _, wn := range r.Warnings {
		root.AddMessage(p.Warn("warning: "), wn.Message)
	}
	if len(r.Unbuilt) > 0 {
		n := root.Add(p.Warn("UNKNOWN: these tiers did not build, so their removals are not judged:"))
		for _, u := range r.Unbuilt {
			t := n.AddMessage(gitops.TierName(u.Kustomization, u.Path)+" at the "+u.Side+": ", u.Error)
			for _, url := range u.RemoteURLs {
				t.Add("needs " + url + " (vendor it into the repository, or run with --allow-network)")
			}
		}
	}
	if len(r.NotCovered) > 0 {
		n := root.Add("Not covered, built from another source than this repository:")
		for _, s := range r.NotCovered {
			n.Add(s.String())
		}
	}
	if len(r.Unchanged) > 0 {
		root.Add(fmt.Sprintf("Unchanged by the candidate, reused from the base (they remove nothing): %d tier(s)", len(r.Unchanged)))
	}
	if c := r.BuildCache; c != nil && c.FromCache+c.Built > 0 {
		root.Add(fmt.Sprintf("Build cache %s: %d tier build(s) read from it, %d built", c.Dir, c.FromCache, c.Built))
	}
	if c := r.RenderCache; c != nil && c.FromCache+c.Built > 0 {
		root.Add(fmt.Sprintf("Render cache %s: %d HelmRelease render(s) read from it, %d rendered", c.Dir, c.FromCache, c.Built))
	}
	for _, note := range r.Notes {
		root.AddMessage("note: ", note.Message)
	}
	output.AddIncomplete(root, r.Incomplete, p)
	addConfirm(root, r.Confirm)
	root.Add(fmt.Sprintf("verdict: %s (exit %d)", colourVerdict(r.Verdict, p), r.ExitCode))
	return root.Render(w, p)
}

func actionWord(outcome string, p output.Palette) string {
	switch outcome {
	case "done":
		return p.Good("done")
	case "stopped":
		return p.Bad("STOPPED at")
	}
	return p.Warn(outcome)
}

func colourVerdict(v string, p output.Palette) string {
	switch v {
	case "UNSAFE", "ORPHANS":
		return p.Bad(v)
	case "UNKNOWN":
		return p.Warn(v)
	}
	return p.Good(v)
}

func addRemovals(root *output.Node, r *Result, p output.Palette) {
	if len(r.Removals) == 0 {
		where := fmt.Sprintf("%d Kustomizations", len(r.Kustomizations))
		if len(r.Unbuilt) > 0 || len(r.Incomplete) > 0 {
			where = "the " + where + " that built"
		}
		root.Add(p.Good("Nothing is removed") + fmt.Sprintf(" between %s and %s in %s.", r.Base, r.Candidate, where))
		return
	}
	var ks *output.Node
	last := ""
	for i := range r.Removals {
		rm := &r.Removals[i]
		if rm.Kustomization != last {
			kind, id, _ := strings.Cut(retire.Applier(rm.Kustomization), " ") // "ResourceSet ns/name" for a ResourceSet
			ks, last = root.Add(kind+" "+p.Bold(id)), rm.Kustomization
		}
		addRemoval(ks, rm, p)
	}
}

func addRemoval(parent *output.Node, rm *retire.Removal, p output.Palette) {
	head := p.Bold(rm.Object.String())
	if rm.File != "" {
		head += " (" + rm.File + ")"
	}
	var n *output.Node
	switch {
	case rm.Unsafe:
		n = parent.Add(p.Bad("UNSAFE") + " " + head + ": " + outcomeText(rm))
	case rm.Outcome == retire.Retained:
		n = parent.Add(p.Good("retained") + " " + head + ": kept by " + rm.OptOut + "; delete by hand later")
	default:
		n = parent.Add(strings.ToLower(string(rm.Outcome)) + " " + head + ": " + outcomeText(rm))
	}
	for _, why := range rm.Reasons {
		n.Add("why: " + why)
	}
	if rm.Persistent != nil && !rm.Unsafe {
		n.Add("persistent: " + rm.Persistent.Detail)
	}
	addLive(n, rm, p)
	addHelm(n, rm, p)
	if len(rm.Plan) > 0 {
		addPlan(n.Add("plan"), rm.Plan, p)
	}
}

func outcomeText(rm *retire.Removal) string {
	if d := rm.HelmDrop; d != nil && rm.Outcome == retire.Pruned {
		if d.Reinstall != "" {
			return "Helm deletes it when helm-controller reinstalls release " + d.Release + " (HelmRelease " + d.HelmRelease + ")"
		}
		return "Helm deletes it when helm-controller upgrades release " + d.Release + " (HelmRelease " + d.HelmRelease + ", " + d.FromText() + " to " + d.To + ")"
	}
	switch rm.Outcome {
	case retire.Pruned:
		return "Flux prunes it"
	case retire.Moved:
		return "moves to " + retire.Applier(rm.MovedTo)
	case retire.NotManaged:
		return "in no live inventory, so Flux prunes nothing"
	case retire.Retained:
		return "kept by " + rm.OptOut
	case retire.Upgraded:
		return "helm-controller upgrades its release, and Helm deletes what the new manifest drops"
	}
	return string(rm.Outcome)
}

func addLive(n *output.Node, rm *retire.Removal, p output.Palette) {
	l := rm.Live
	if l == nil {
		return
	}
	if !l.Exists {
		n.Add(p.Faint("live: not on the cluster"))
		return
	}
	state := "live: exists"
	if l.Terminating {
		state += ", " + p.Bad("Terminating")
	}
	if len(l.Finalizers) > 0 {
		state += ", finalizers " + strings.Join(l.Finalizers, ", ")
	}
	n.Add(state)
	for _, b := range l.Consumers {
		line := fmt.Sprintf("mounted by pods/%s: %s", b.Object.Name, b.Reason)
		if len(b.Details) > 0 {
			line += " (" + strings.Join(b.Details, ", ") + ")"
		}
		c := n.Add(line)
		if len(b.OwnerChain) > 0 {
			parts := make([]string, len(b.OwnerChain))
			for i, o := range b.OwnerChain {
				parts[i] = o.String()
			}
			c.Add("owners: " + strings.Join(parts, " → "))
		}
		if b.GitOps != nil {
			c.Add("GitOps owner: " + b.GitOps.String())
		}
	}
	if l.Cost != "" {
		n.Add("if deleted: " + l.Cost)
	}
	for _, c := range l.Claims {
		fate := p.Good("left orphaned")
		if c.WithOwner {
			fate = p.Bad("deleted with it")
		}
		addHelmClaim(n.Add(fmt.Sprintf("claim %s: %s (%s)", c.Object, fate, c.Via)), c)
	}
	if w := rm.Wedge; w != nil && len(w.Frozen) > 0 {
		n.Add(p.Warn("would freeze: ") + strings.Join(w.Frozen, ", "))
	}
}

func addPlan(parent *output.Node, stages []retire.Stage, p output.Palette) {
	for _, s := range stages {
		title := fmt.Sprintf("%d %s", s.Number, s.Title)
		if s.Done {
			title += p.Good(" (done by this change)")
		}
		n := parent.Add(p.Bold(title))
		for _, d := range s.Do {
			n.Add(d)
		}
		for _, c := range s.Commands {
			n.Add("$ " + c)
		}
		if s.Check != "" {
			n.AddLines("check: $ "+s.Check, "expect: "+s.Expect)
		}
		if s.Cost != "" {
			n.Add("lost: " + s.Cost)
		}
	}
}

func addOrphans(root *output.Node, r *Result, p output.Palette) {
	if len(r.Orphans) == 0 {
		root.Add(p.Good("No orphans") + ": every object kustomize-controller applied is in a Kustomization's inventory.")
		return
	}
	n := root.Add(fmt.Sprintf("%d objects applied by kustomize-controller are in no Kustomization's inventory:", len(r.Orphans)))
	for _, o := range r.Orphans {
		line := fmt.Sprintf("%s, age %s, labelled for Kustomization %s", p.Bold(o.Object.String()), o.Age, o.Kustomization)
		if o.Protected {
			line += " (retained: prune disabled)"
		}
		n.Add(line)
	}
}

// addConfirm draws the plan's digest, what it pins, and the command bound to it.
func addConfirm(root *output.Node, c *Confirmation) {
	if c == nil {
		return
	}
	n := root.Add(fmt.Sprintf("plan digest: %s (%d step(s) on context %s, base %s, candidate %s)", c.Digest, len(c.Plan.Steps),
		c.Plan.Context, orNone(c.Plan.Base), revName(c.Plan.Candidate)))
	for _, o := range c.Plan.Objects {
		n.Add(fmt.Sprintf("pins %s at UID %s, resourceVersion %s", o.Object, orNone(o.UID), orNone(o.ResourceVersion)))
	}
	if c.Command != "" {
		n.Add("carry out exactly this plan, without asking (refused if anything in it changed): " + c.Command)
	}
}
