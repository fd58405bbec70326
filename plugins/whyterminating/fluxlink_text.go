package whyterminating

import (
	"strings"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// addGitOpsLink draws the Flux object that manages a remover that is gone or not ready, its
// state and the root causes that hold it back, then the Kustomization that applies it when that
// one is not Ready either.
func addGitOpsLink(n *output.Node, l *finalizers.GitOpsLink, p output.Palette) {
	if l == nil {
		return
	}
	state := l.State
	switch l.State {
	case "Ready":
		state = p.Good(state)
	case "Unknown":
		state = p.Warn("UNKNOWN")
	default:
		state = p.Bad(state)
	}
	ln := n.Add("managed by Flux " + l.String() + ": " + state)
	ln.Add("via: " + l.Via)
	if l.Reason != "" {
		// The reads that failed follow what they leave unknown, on the same line.
		msg := l.Reason
		if len(l.Unchecked) > 0 {
			msg += ": " + strings.Join(report.GapLines(l.Unchecked), "; ")
		}
		ln.AddMessage("", msg)
	}
	if r := l.Ready; r != nil && l.State != "Ready" && r.Message != "" {
		ln.AddStyledMessage(p.Faint, "Ready="+r.Status+" "+r.Reason+": ", r.Message)
	}
	for _, c := range l.Causes {
		cn := ln.Add(p.Bad("root cause") + ": " + c.Object + " (" + string(c.Code) + ")")
		if c.Message != "" {
			cn.AddMessage(c.Reason+": ", c.Message)
		}
		for _, e := range c.Explanation {
			cn.AddMessage("", e)
		}
	}
	if l.AppliedBy != nil {
		addGitOpsLink(ln, l.AppliedBy, p)
	}
}
