package whyterminating

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/output"
)

// PrintText draws the result as a tree: one root per object, one branch per finalizer, its
// blockers with their owners and GitOps owner, then the remediation steps with their cost. The
// command, fleet mode and the MCP server print a Result with it.
func PrintText(w io.Writer, r *Result, p output.Palette) error {
	root := &output.Node{}
	if len(r.Objects) == 0 {
		root.Add(p.Good("Nothing is Terminating") + " in " + r.Scope + ".")
	}
	unreadable := map[string]bool{}
	for _, g := range r.Incomplete {
		if t := listedType(g); t != "" {
			unreadable[t] = true
		}
	}
	for _, e := range r.Objects {
		addExplanation(root, collapseGaps(e, unreadable), p)
	}
	for _, s := range r.Shadowed {
		root.Add(p.Faint("note: the core group was chosen; " + s + " has the same name"))
	}
	output.AddIncomplete(root, r.Incomplete, p)
	for _, u := range r.Unchecked {
		root.Add(p.Faint("not checked: " + u.String()))
	}
	if !r.Swept() && len(r.DiscoveryFailures) > 0 {
		// One object's explanation does not depend on groups it does not touch.
		n := root.Add(p.Faint("note: discovery failed for these group versions; the explanation above does not depend on them:"))
		for _, d := range r.DiscoveryFailures {
			n.AddMessage("discovery of "+d.GroupVersion+": ", d.Error)
		}
	}
	root.Add(fmt.Sprintf("verdict: %s (exit %d)", colourVerdict(r.Verdict, p), r.ExitCode))
	return root.Render(w, p)
}

func colourVerdict(v string, p output.Palette) string {
	switch v {
	case "STUCK":
		return p.Bad(v)
	case "UNKNOWN", "DELETING":
		return p.Warn(v)
	}
	return p.Good(v)
}

func addExplanation(parent *output.Node, e *finalizers.Explanation, p output.Palette) {
	head := p.Bold(e.Object.String())
	if !e.Terminating {
		parent.Add(head + " is " + p.Good("not Terminating") + " (no deletion was requested).")
		return
	}
	state := p.Bad("Terminating for " + e.TerminatingFor)
	if e.Deleting {
		state = p.Warn("Deleting for " + e.TerminatingFor)
	}
	head += " " + state
	if g := e.GracePeriodSeconds; g != nil {
		requested := e.DeletionTimestamp.Add(-time.Duration(*g) * time.Second)
		head += fmt.Sprintf(" (deletion requested %s with a grace period of %ds)", requested.Format("2006-01-02 15:04:05Z"), *g)
	} else {
		head += fmt.Sprintf(" (deletion requested %s)", e.DeletionTimestamp.Format("2006-01-02 15:04:05Z"))
	}
	if e.GitOps != nil {
		head += ", managed by " + e.GitOps.String()
	}
	n := parent.Add(head)
	for _, c := range e.Conditions {
		switch {
		case c.Status == "True" && c.Stale != "":
			n.AddStyledMessage(p.Faint, fmt.Sprintf("condition %s (stale: %s): ", c.Type, c.Stale), c.Message)
		case c.Status == "True":
			n.AddStyledMessage(p.Faint, fmt.Sprintf("condition %s: ", c.Type), c.Message)
		case c.Message != "" && e.Object.Resource != "namespaces":
			n.AddStyledMessage(p.Faint, fmt.Sprintf("condition %s=%s: ", c.Type, c.Status), c.Message)
		}
	}
	for _, s := range e.Status {
		n.Add(p.Faint(s))
	}
	for _, ev := range e.Events {
		n.AddStyledMessage(p.Faint, eventHead(ev), ev.Message)
	}
	if e.Deleting {
		d := n.Add(p.Warn("deleting, not stuck") + ": its deletion progresses on its own")
		for _, ev := range e.Progress {
			d.Add("evidence: " + ev)
		}
	}
	for _, ev := range e.ProgressEvidence {
		if ev.Against {
			n.Add(p.Bad("not progressing") + ": " + ev.Detail)
		}
	}
	if e.Pending != "" {
		n.Add(e.Pending)
	}
	for _, f := range e.Finalizers {
		addFinalizer(n, f, p)
	}
	for _, u := range e.Unchecked {
		n.Add(p.Faint("not checked: " + u.String()))
	}
	addRemedies(n, e.Remedies, p)
}

// eventHead is how an event's line starts, as kubectl describe lists it: type, reason, source;
// its message follows.
func eventHead(ev finalizers.Event) string {
	s := fmt.Sprintf("event %s %s", ev.Type, ev.Reason)
	if ev.Source != "" {
		s += " from " + ev.Source
	}
	if ev.Count > 1 {
		s += fmt.Sprintf(" (x%d)", ev.Count)
	}
	return s + ": "
}

func addFinalizer(parent *output.Node, f finalizers.Finalizer, p output.Palette) {
	n := parent.Add("finalizer " + p.Bold(f.Name))
	n.Add("removed by: " + f.RemovedBy)
	n.Add("waits for: " + f.WaitsFor)
	addControllers(n, f, p)
	addDomainVerdict(n, f, p)
	for _, ev := range f.TypeEvidence {
		n.Add("type: " + ev)
	}
	if len(f.Blockers) == 0 && len(f.Incomplete) == 0 && !controllerBlocks(f) {
		n.Add(p.Good("no blocker found"))
	}
	for _, b := range f.Blockers {
		addBlocker(n, b, p)
	}
	for _, w := range f.Waiting {
		n.Add("waiting " + w.Object.QualifiedResource() + " -n " + w.Object.Namespace + ": " + w.Reason).Add(strings.Join(w.Details, ", "))
	}
	for _, gap := range f.Incomplete {
		n.Add(p.Warn("INCOMPLETE: " + gap.String()))
	}
	for _, u := range f.Unchecked {
		n.Add(p.Faint("not checked: " + u.String()))
	}
	addRemedies(n, f.Remedies, p)
}

func addBlocker(parent *output.Node, b finalizers.Blocker, p output.Palette) {
	name := b.Object.String()
	if b.Count > 0 {
		name = b.Object.QualifiedResource() + " -n " + b.Object.Namespace
	}
	n := parent.Add("blocked by " + p.Bad(name) + ": " + b.Reason)
	if len(b.Details) > 0 {
		n.Add(strings.Join(b.Details, ", "))
	}
	if len(b.OwnerChain) > 0 {
		var chain []string
		for _, o := range b.OwnerChain {
			chain = append(chain, o.QualifiedResource()+"/"+o.Name)
		}
		n.Add("owners: " + strings.Join(chain, " → "))
	}
	if b.GitOps != nil {
		n.Add("GitOps owner: " + b.GitOps.String())
	}
	if b.Terminating != nil {
		addExplanation(n, b.Terminating, p)
	}
}

func addRemedies(parent *output.Node, rs []finalizers.Remediation, p output.Palette) {
	for i, r := range rs {
		label := fmt.Sprintf("fix %d: ", i+1)
		if r.LastResort {
			label = fmt.Sprintf("last resort %d: ", i+1)
		}
		n := parent.Add(p.Bold(label) + r.Summary)
		for _, w := range r.RejectedBy {
			n.Add(p.Warn("rejected until the step above is done: ") + w + " would refuse this command")
		}
		for _, w := range r.JudgedBy {
			n.Add(p.Warn("judged by: ") + w + " sees this command and may refuse it while the object is in a state it guards")
		}
		if r.Command != "" {
			n.Add("$ " + r.Command)
		}
		if r.Cost != "" {
			n.Add("cost: " + r.Cost)
		}
	}
}

// addControllers draws who may remove the finalizer, each with the evidence it rests on.
func addControllers(n *output.Node, f finalizers.Finalizer, p output.Palette) {
	for _, c := range f.Controllers {
		var line string
		switch {
		case !c.Found && c.Object.Name == "":
			line = p.Bad("controller: none found") + " — " + c.Note
		case !c.Found:
			line = p.Bad("controller: "+c.Object.String()) + " — " + c.Note
		default:
			state := "ready " + c.Ready
			if c.ScaledToZero {
				state += ", scaled to 0"
			}
			line = "controller: " + c.Object.String() + " " + state
			if !c.Healthy {
				line = p.Bad(line)
			}
			if c.Note != "" {
				line += " — " + c.Note
			}
		}
		cn := n.Add(line)
		for _, ev := range c.Evidence {
			cn.Add("evidence: " + ev)
		}
		addTies(cn, c)
		addGitOpsLink(cn, c.GitOps, p)
	}
}

// addTies draws a candidate's confidence and the ties to the finalizer's domain it rests on.
func addTies(n *output.Node, c finalizers.Controller) {
	if c.Confidence == "" {
		return
	}
	n.Add("confidence: " + string(c.Confidence))
	for _, t := range c.Ties {
		n.Add("tie: " + t)
	}
}

// addDomainVerdict draws the workloads that merely could remove the finalizer (no tie to its
// domain), the pause markers its remover obeys, an orphaned finalizer and a stalled remover.
func addDomainVerdict(n *output.Node, f finalizers.Finalizer, p output.Palette) {
	for _, c := range f.Unrelated {
		un := n.Add(p.Faint("unrelated: " + c.Object.String() + " — " + c.Note))
		for _, ev := range c.Evidence {
			un.Add(p.Faint("evidence: " + ev))
		}
	}
	for _, m := range f.Paused {
		n.Add(p.Bad("paused") + ": " + m.Object.String() + " " + m.Field + "=" + strconv.Quote(m.Value) + " — the remover skips this object until it is unpaused")
	}
	if f.Orphaned {
		n.Add(p.Bad("orphaned") + ": no running workload may update the object, so nothing will ever remove " + f.Name)
	}
	if s := f.Stalled; s != nil {
		sn := n.Add(p.Bad("stalled") + ": " + s.Remover.String() + " runs but has made no progress on the object for " + s.Idle)
		for _, ev := range s.Evidence {
			sn.Add("evidence: " + ev)
		}
		for _, r := range s.LikelyReasons {
			sn.Add("likely: " + r)
		}
	}
}

// controllerBlocks reports whether the controllers themselves are the blocker (absent or not
// ready), so "no blocker found" would be false.
func controllerBlocks(f finalizers.Finalizer) bool {
	if len(f.Paused) > 0 || f.Orphaned || f.Stalled != nil {
		return true
	}
	for _, c := range f.Controllers {
		if !c.Healthy {
			return true
		}
	}
	return false
}
