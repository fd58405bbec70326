package fluxchain

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/lint"
)

// entryNote is the key of the lint findings that name no Kustomization (the entry path's).
const entryNote = ""

// lintNotes are the graphs' view of the lint findings: per Kustomization, one line per rule
// with its severity and count ("ERROR crd-order ×2"), and the most severe finding.
type lintNotes struct {
	lines map[string][]string
	worst map[string]lint.Severity
}

// notesOf groups findings by the Kustomizations they are about; one that names several (a
// shared component) is noted on each.
func notesOf(fs []lint.Finding) lintNotes {
	count := map[string]map[string]int{} // id -> "SEVERITY rule" -> n
	n := lintNotes{lines: map[string][]string{}, worst: map[string]lint.Severity{}}
	for _, f := range fs {
		for _, id := range f.Tiers() {
			if count[id] == nil {
				count[id] = map[string]int{}
			}
			count[id][fmt.Sprintf("%s %s", strings.ToUpper(string(f.Severity)), f.Rule)]++
			if f.Severity.Rank() > n.worst[id].Rank() {
				n.worst[id] = f.Severity
			}
		}
	}
	for id, c := range count {
		keys := slices.SortedFunc(maps.Keys(c), func(a, b string) int {
			return cmpSeverityLine(a, b)
		})
		for _, k := range keys {
			line := k
			if c[k] > 1 {
				line = fmt.Sprintf("%s ×%d", k, c[k])
			}
			n.lines[id] = append(n.lines[id], line)
		}
	}
	return n
}

// cmpSeverityLine orders "SEVERITY rule" lines most severe first, then by rule.
func cmpSeverityLine(a, b string) int {
	sa, ra, _ := strings.Cut(a, " ")
	sb, rb, _ := strings.Cut(b, " ")
	if d := lint.Severity(strings.ToLower(sb)).Rank() - lint.Severity(strings.ToLower(sa)).Rank(); d != 0 {
		return d
	}
	return strings.Compare(ra, rb)
}
