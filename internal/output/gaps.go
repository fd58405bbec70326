package output

import "strings"

// Gap is one read or build that failed: what it would have shown is unknown, not absent. It is
// the one shape of an incomplete result across the plugins: each Result lists its gaps under
// the JSON key "incomplete", the text printers draw them with AddIncomplete, and any gap makes
// the verdict UNKNOWN (exit 2). The Result decides that; this package only renders.
type Gap struct {
	// What names what was not read or built, e.g. "listing backups.velero.io" or
	// "reading gitrepositories.source.toolkit.fluxcd.io flux-system/podinfo".
	What string `json:"what"`
	// Reason is why, as the server, git or the builder said it; "" when What says it all.
	Reason string `json:"reason,omitempty"`
}

// String is the gap on one line, "what: reason".
func (g Gap) String() string {
	if g.Reason == "" {
		return g.What
	}
	return g.What + ": " + g.Reason
}

// GapsOf turns the "what: reason" lines the domain packages record for failed reads into gaps,
// splitting each at its first ": "; nil for none.
func GapsOf(lines []string) []Gap {
	var out []Gap
	for _, l := range lines {
		what, reason, _ := strings.Cut(l, ": ")
		out = append(out, Gap{What: what, Reason: reason})
	}
	return out
}

// AddIncomplete adds the INCOMPLETE section under root, one item per gap (a reason of several
// lines drawn as lines, see AddMessage), and returns it (nil
// when there are no gaps) so a printer can add lines of its own under it.
func AddIncomplete(root *Node, gaps []Gap, p Palette) *Node {
	if len(gaps) == 0 {
		return nil
	}
	n := root.Add(p.Warn("INCOMPLETE: these reads or builds failed, so what they would show is unknown (not absent):"))
	for _, g := range gaps {
		n.AddMessage("", g.String())
	}
	return n
}
