package lint

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/output"
)

// AddText adds the finding under parent for people: severity, rule and message, where it is
// fixed, and the tiers and objects one cause yields it in when there are several. It returns
// the finding's node, for the printer to add why, fix or the suppression under it.
func (f Finding) AddText(parent *output.Node, p output.Palette) *output.Node {
	n := parent.Add(fmt.Sprintf("%s %s %s", f.Severity.Text(p), p.Bold(f.Rule), f.Message))
	if loc := f.Location(); loc != "" {
		n.Add("at " + loc)
	}
	if len(f.Kustomizations) > 1 {
		n.Add(fmt.Sprintf("in %d Kustomizations: %s", len(f.Kustomizations), strings.Join(f.Kustomizations, ", ")))
	}
	if len(f.Objects) > 1 {
		n.Add(fmt.Sprintf("for %d objects: %s", len(f.Objects), strings.Join(f.Objects, ", ")))
	}
	return n
}

// Detail is the finding's message on one line, with the tiers and objects one cause yields it
// in when there are several (for tables such as a step summary).
func (f Finding) Detail() string {
	s := f.Message
	if len(f.Kustomizations) > 1 {
		s += fmt.Sprintf(" (in %d Kustomizations: %s)", len(f.Kustomizations), strings.Join(f.Kustomizations, ", "))
	}
	if len(f.Objects) > 1 {
		s += fmt.Sprintf(" (for %d objects: %s)", len(f.Objects), strings.Join(f.Objects, ", "))
	}
	return s
}

// Text is the severity in capitals, coloured by p: errors bad, warnings a warning.
func (s Severity) Text(p output.Palette) string {
	switch s {
	case Error:
		return p.Bad(strings.ToUpper(string(s)))
	case Warning:
		return p.Warn(strings.ToUpper(string(s)))
	}
	return strings.ToUpper(string(s))
}
