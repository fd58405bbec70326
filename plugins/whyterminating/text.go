package whyterminating

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/output"
)

// renderText draws the result as a tree: one root per object, one branch per finalizer, its
// blockers with their owners and GitOps owner, then the remediation steps with their cost.
func renderText(w io.Writer, r *Result, p output.Palette) error {
	root := &output.Node{}
	if len(r.Objects) == 0 {
		root.Add(p.Good("Nothing is Terminating") + " in " + r.Scope + ".")
	}
	for _, e := range r.Objects {
		addExplanation(root, e, p)
	}
	for _, s := range r.Shadowed {
		root.Add(p.Faint("note: the core group was chosen; " + s + " has the same name"))
	}
	if len(r.Unreadable) > 0 || len(r.DiscoveryFailures) > 0 {
		n := root.Add(p.Warn("INCOMPLETE: these reads failed, so objects of these types are unknown (not absent):"))
		for _, u := range r.Unreadable {
			n.Add(u.Resource + ": " + u.Reason)
		}
		for _, d := range r.DiscoveryFailures {
			n.Add("discovery of " + d.GroupVersion + ": " + d.Error)
		}
	}
	root.Add(fmt.Sprintf("verdict: %s (exit %d)", colourVerdict(r.Verdict, p), r.ExitCode))
	return root.Render(w, p)
}

func colourVerdict(v string, p output.Palette) string {
	switch v {
	case "STUCK":
		return p.Bad(v)
	case "UNKNOWN":
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
	head += " " + p.Bad("Terminating for "+e.TerminatingFor)
	head += fmt.Sprintf(" (deletion requested %s)", e.DeletionTimestamp.Format("2006-01-02 15:04:05Z"))
	if e.GitOps != nil {
		head += ", managed by " + e.GitOps.String()
	}
	n := parent.Add(head)
	for _, c := range e.Conditions {
		if c.Status == "True" {
			n.Add(p.Faint(fmt.Sprintf("condition %s: %s", c.Type, c.Message)))
		}
	}
	if e.Pending != "" {
		n.Add(e.Pending)
	}
	for _, f := range e.Finalizers {
		addFinalizer(n, f, p)
	}
	addRemedies(n, e.Remedies, p)
}

func addFinalizer(parent *output.Node, f finalizers.Finalizer, p output.Palette) {
	n := parent.Add("finalizer " + p.Bold(f.Name))
	n.Add("removed by: " + f.RemovedBy)
	n.Add("waits for: " + f.WaitsFor)
	if c := f.Controller; c != nil {
		switch {
		case !c.Found:
			n.Add(p.Bad("controller: none found") + " — " + c.Note)
		case !c.Healthy:
			n.Add(p.Bad("controller: "+c.Object.String()+" ready "+c.Ready) + " — " + c.Note)
		default:
			n.Add("controller: " + c.Object.String() + " ready " + c.Ready)
		}
	}
	if len(f.Blockers) == 0 && len(f.Incomplete) == 0 {
		n.Add(p.Good("no blocker found"))
	}
	for _, b := range f.Blockers {
		addBlocker(n, b, p)
	}
	for _, gap := range f.Incomplete {
		n.Add(p.Warn("INCOMPLETE: " + gap))
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
		if r.Command != "" {
			n.Add("$ " + r.Command)
		}
		if r.Cost != "" {
			n.Add("cost: " + r.Cost)
		}
	}
}
