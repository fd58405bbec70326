package fluxchain

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/output"
	"github.com/kubeforensics/suite/internal/report"
)

// PrintText draws the result for people: the chain (flux.Chain.AddText: root causes, tiers,
// findings), then the reads that failed.
func PrintText(w io.Writer, res *Result, p output.Palette) error {
	root := &output.Node{}
	if len(res.Kustomizations) == 0 {
		scope := "namespace " + res.Namespace
		if res.Namespace == "" {
			scope = "any namespace"
		}
		root.Add(fmt.Sprintf("No Kustomizations in %s.", scope))
	}
	addLiveness(root, res.Liveness, p)
	res.AddText(root, p)
	output.AddIncomplete(root, res.Incomplete, p)
	if len(res.Unchecked) > 0 {
		sec := root.Add(p.Warn("WARNINGS (the root causes' objects may be incompletely explained)"))
		for _, g := range res.Unchecked {
			sec.AddMessage("", g.String())
		}
	}
	return root.Render(w, p)
}

// PrintDot writes the chain as a Graphviz digraph (flux.Chain.WriteDot).
func PrintDot(w io.Writer, res *Result) error {
	return res.WriteDot(w, flux.Notes{})
}

// PrintMermaid writes the chain as a Mermaid flowchart (flux.Chain.WriteMermaid).
func PrintMermaid(w io.Writer, res *Result) error {
	return res.WriteMermaid(w, flux.Notes{})
}

// addLiveness draws what the result says of the controllers that write the chain's status:
// the ones down and the statuses older than their interval (STALE), the liveness that could not
// be verified, and the restarts of controllers that are up. Nothing when all is well.
func addLiveness(root *output.Node, l *flux.Liveness, p output.Palette) {
	if l == nil {
		return
	}
	if l.IsStale() {
		sec := root.Add(p.Bad("STALE") + ": the chain's status is older than its controllers can explain, and cannot be trusted")
		for _, c := range l.Controllers {
			if c.Found && !c.Up {
				sec.Add(fmt.Sprintf("%s (%s) is down: %s", p.Bold(c.Name), strings.Join(c.Kinds, ", "), c.Down))
			}
		}
		for _, s := range l.Stale {
			sec.Add(fmt.Sprintf("%s last reconciled %s ago (%s), interval %s", s.Object, s.Age, s.LastReconciled, s.Interval))
		}
	}
	if !l.Checked {
		root.Add(p.Warn("controller liveness not verified: ") + strings.Join(report.GapLines(l.Unchecked), "; ") + "; the status read may be older than it says")
	}
	for _, c := range l.Controllers {
		if c.Up && c.Restarts > 0 {
			line := fmt.Sprintf("%s restarted %d time(s)", c.Name, c.Restarts)
			if c.LastTermination != "" {
				line += ", last terminated " + c.LastTermination
			}
			root.Add(p.Warn("controller ") + line)
		}
	}
}
