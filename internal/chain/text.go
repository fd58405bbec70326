package chain

import (
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// AddText adds the --base section to the repository's text output: the sentence, then what
// was added and fixed. Nothing without a diff.
func (d *RepoDiff) AddText(root *output.Node, p output.Palette) {
	if d == nil {
		return
	}
	sec := root.Add(p.Bold(fmt.Sprintf("AGAINST BASE %s (%s): %s", d.Base, ShortSHA(d.BaseCommit), d.Sentence())))
	if d.BaseNote != "" {
		sec.Add(d.BaseNote)
	}
	for _, part := range []struct {
		title string
		fs    []lint.Finding
	}{{"added", d.Added}, {"fixed", d.Fixed}} {
		for _, f := range part.fs {
			sec.Add(fmt.Sprintf("%s: %s %s %s: %s", part.title, strings.ToUpper(string(f.Severity)), f.Rule, f.Location(), f.Message))
		}
	}
}

// AddText adds the LIVE section to the repository's text output: what was compared and the
// counts (each difference is a live-* finding above it) and what was not compared; the reads
// that failed follow in the INCOMPLETE section. Nothing without --live.
func (l *LiveComparison) AddText(root *output.Node, incomplete bool, p output.Palette) {
	if l == nil {
		return
	}
	scope := "all namespaces"
	if l.Namespace != "" {
		scope = "namespace " + l.Namespace
	}
	head := fmt.Sprintf("LIVE: compared with %s in %s", l.Target, scope)
	if incomplete {
		head = p.Warn(head + " (INCOMPLETE)")
	}
	sec := root.Add(p.Bold(head))
	counts := fmt.Sprintf("%d Kustomization(s) in both, %d only in the repository (live-not-in-cluster), %d only in the cluster (live-not-in-repo), %d spec difference(s) (live-spec-drift), %d CRD(s) only in the cluster (live-crd-outside-git)",
		l.InBoth, len(l.NotInCluster), len(l.NotInRepo), len(l.SpecDrift), len(l.CRDsOnlyLive))
	sec.Add(counts)
	if len(l.NotCompared) > 0 {
		n := sec.Add(fmt.Sprintf("not compared, built from another source (%d)", len(l.NotCompared)))
		for _, s := range l.NotCompared {
			n.Add(s)
		}
	}
}
