package output

import "github.com/kubeforensics/suite/internal/report"

// AddIncomplete adds the INCOMPLETE section under root, one item per gap (report.Gap: the one
// shape of an incomplete result across the plugins, its String the line; an error of several
// lines drawn as lines, see AddMessage), and returns it (nil when there are no gaps) so a
// printer can add lines of its own under it. Any gap makes the verdict UNKNOWN (exit 2); the
// Result decides that, this package only renders.
func AddIncomplete(root *Node, gaps []report.Gap, p Palette) *Node {
	if len(gaps) == 0 {
		return nil
	}
	n := root.Add(p.Warn("INCOMPLETE: these reads or builds failed, so what they would show is unknown (not absent):"))
	for _, g := range gaps {
		n.AddMessage("", g.String())
	}
	return n
}
