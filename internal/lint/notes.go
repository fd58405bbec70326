package lint

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/flux"
)

// GraphNotes are the graphs' view of the findings: per Kustomization, one line per rule with its
// severity and count ("ERROR crd-order ×2"), most severe first, and a mark for the most severe
// finding. One that names several Kustomizations (a shared component) is noted on each; one
// that names none goes under flux.EntryNote.
func GraphNotes(fs []Finding) flux.Notes {
	count := map[string]map[string]int{} // id -> "SEVERITY rule" -> n
	worst := map[string]Severity{}
	for _, f := range fs {
		for _, id := range f.Tiers() {
			if count[id] == nil {
				count[id] = map[string]int{}
			}
			count[id][fmt.Sprintf("%s %s", strings.ToUpper(string(f.Severity)), f.Rule)]++
			if f.Severity.Rank() > worst[id].Rank() {
				worst[id] = f.Severity
			}
		}
	}
	n := flux.Notes{Lines: map[string][]string{}, Marks: map[string]flux.Mark{}}
	for id, c := range count {
		for _, k := range slices.SortedFunc(maps.Keys(c), cmpSeverityLine) {
			line := k
			if c[k] > 1 {
				line = fmt.Sprintf("%s ×%d", k, c[k])
			}
			n.Lines[id] = append(n.Lines[id], line)
		}
	}
	for id, s := range worst {
		switch s {
		case Error:
			n.Marks[id] = flux.MarkError
		case Warning:
			n.Marks[id] = flux.MarkWarning
		}
	}
	return n
}

// cmpSeverityLine orders "SEVERITY rule" lines most severe first, then by rule.
func cmpSeverityLine(a, b string) int {
	sa, ra, _ := strings.Cut(a, " ")
	sb, rb, _ := strings.Cut(b, " ")
	if d := Severity(strings.ToLower(sb)).Rank() - Severity(strings.ToLower(sa)).Rank(); d != 0 {
		return d
	}
	return strings.Compare(ra, rb)
}
