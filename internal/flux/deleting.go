package flux

import (
	"context"
	"fmt"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/report"
)

// explainDeleting explains, through the Explainer (why-terminating's explanation: the
// controller that removes finalizers.fluxcd.io, whether it runs, the cost of removing it by
// hand), every Kustomization and HelmRelease of the chain that is being deleted. It returns
// the explanations by the objects' fully qualified names, so an object a health check names
// or a root cause lists is explained with the same reads, and the explanations that could not
// be made, or were made with reads that failed, as gaps that do not change the verdict.
func (d *Drill) explainDeleting(ctx context.Context, c *Chain) (map[string]*finalizers.Explanation, []report.Gap) {
	var gaps []report.Gap
	known := map[string]*finalizers.Explanation{}
	explain := func(gk schema.GroupKind, ns, name string) *finalizers.Explanation {
		subject := report.ObjectID{Group: gk.Group, Kind: gk.Kind, Namespace: ns, Name: name}
		what := fmt.Sprintf("explaining %s %s/%s", gk.Kind, ns, name)
		if d.Catalog == nil || d.Explainer == nil {
			gaps = append(gaps, report.Gap{Op: report.OpExplain, Subject: subject, Reason: report.GapNotRead, What: what, Error: "API discovery unavailable"})
			return nil
		}
		res, err := d.Catalog.ResolveGroupKind(gk)
		if err != nil {
			gaps = append(gaps, explainGap(subject, what, err))
			return nil
		}
		exp, err := d.Explainer.Explain(ctx, res, ns, name)
		if err != nil {
			gaps = append(gaps, explainGap(subject, what, err))
			return nil
		}
		if exp.Incomplete() {
			gaps = append(gaps, report.Gap{Op: report.OpExplain, Subject: subject, Reason: firstGapReason(exp), What: what, Error: "some reads failed, see its finalizers"})
		}
		return exp
	}
	for _, n := range c.Kustomizations {
		if n.Deleting {
			n.Terminating = explain(kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind).GroupKind(), n.Namespace, n.Name)
			known[kustomizationRef(n.ID)] = n.Terminating
		}
		for i := range n.HelmReleases {
			if hr := &n.HelmReleases[i]; hr.Deleting {
				hr.Terminating = explain(helmv2.GroupVersion.WithKind(helmv2.HelmReleaseKind).GroupKind(), hr.Namespace, hr.Name)
				known[helmReleaseRef(hr.Namespace, hr.Name)] = hr.Terminating
			}
		}
	}
	// A root cause's HelmReleases were copied from its tier before the drill.
	for i := range c.RootCauses {
		for j := range c.RootCauses[i].HelmReleases {
			hr := &c.RootCauses[i].HelmReleases[j]
			hr.Terminating = known[helmReleaseRef(hr.Namespace, hr.Name)]
		}
	}
	return known, gaps
}

// explainGap is an explanation of subject that failed with err.
func explainGap(subject report.ObjectID, what string, err error) report.Gap {
	return report.Gap{Op: report.OpExplain, Subject: subject, Reason: cluster.GapReason(err), What: what, Error: err.Error()}
}

// firstGapReason is the reason of the first read an explanation's finalizers (or the
// explanations of their blockers) could not make; GapFailed when none is found.
func firstGapReason(exp *finalizers.Explanation) report.GapReason {
	for _, f := range exp.Finalizers {
		if len(f.Incomplete) > 0 {
			return f.Incomplete[0].Reason
		}
		for _, b := range f.Blockers {
			if b.Terminating != nil && b.Terminating.Incomplete() {
				return firstGapReason(b.Terminating)
			}
		}
	}
	return report.GapFailed
}

// helmReleaseRef renders a HelmRelease fully qualified, the way kubectl accepts it back.
func helmReleaseRef(namespace, name string) string {
	return objectRef(HelmReleaseGVR.GroupResource().String(), namespace, name)
}
