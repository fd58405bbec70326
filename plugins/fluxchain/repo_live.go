package fluxchain

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/output"
)

// LiveComparison is what --live found comparing the repository with a cluster: the cluster and
// the differences (each also a finding of a live-* rule in RepoResult.Lint). The reads that
// failed are RepoResult.Incomplete.
type LiveComparison struct {
	Target cluster.Target `json:"target"`
	// Namespace is the namespace compared; "" means all namespaces.
	Namespace string `json:"namespace"`
	lint.LiveDiff

	// objects are what was read, for the comparison; gaps the reads that failed.
	objects *lint.Live
	gaps    []output.Gap
}

// completeLive connects to the cluster for --live: all namespaces unless -n names one.
func (o *FluxChainOptions) completeLive() error {
	c, err := cluster.Connect(o.ConfigFlags)
	if err != nil {
		return err
	}
	o.clients, o.live.namespace = c, ""
	if c.NamespaceExplicit {
		o.live.namespace = c.Namespace
	}
	return nil
}

// readLive reads the cluster's Kustomizations and CRDs for --live. It only reads; a CRD list
// that fails makes the comparison incomplete.
func (o *FluxChainOptions) readLive(ctx context.Context) (*LiveComparison, error) {
	c := o.clients
	objs, err := flux.Read(ctx, c.Dynamic, o.live.namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("Flux is not installed on %s: %v", c.Target, err)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	lc := &LiveComparison{Target: c.Target, Namespace: o.live.namespace, gaps: output.GapsOf(objs.Warnings),
		objects: &lint.Live{Namespace: o.live.namespace, Kustomizations: objs.Kustomizations}}
	if lc.objects.CRDs, err = flux.ListCRDs(ctx, c.Dynamic); err != nil {
		lc.gaps = append(lc.gaps, output.Gap{What: "listing " + flux.CRDGVR.GroupResource().String(), Reason: cluster.Reason(err)})
	}
	return lc, nil
}

// liveText adds the LIVE section to the repository's text output: what was compared and
// the counts (each difference is a live-* finding above it) and what was not compared; the
// reads that failed follow in the INCOMPLETE section.
func liveText(root *output.Node, l *LiveComparison, incomplete bool, p output.Palette) {
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

// liveSummary is the step summary's line about --live, "" without it.
func liveSummary(l *LiveComparison, gaps []output.Gap) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Compared with %s: %d Kustomizations in both, %d only in the repository, %d only in the cluster, %d spec difference(s), %d CRD(s) only in the cluster.\n\n",
		ghactions.Cell(l.Target.String()), l.InBoth, len(l.NotInCluster), len(l.NotInRepo), len(l.SpecDrift), len(l.CRDsOnlyLive))
	for _, g := range gaps {
		fmt.Fprintf(&b, "- ⚠️ live read failed: %s\n", ghactions.Cell(g.String()))
	}
	return b.String()
}
