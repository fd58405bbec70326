package flux

import (
	"context"
	"fmt"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/finalizers"
)

// explainDeleting explains, through the Explainer (why-terminating's explanation: the
// controller that removes finalizers.fluxcd.io, whether it runs, the cost of removing it by
// hand), every Kustomization and HelmRelease of the chain that is being deleted, and returns
// the explanations that could not be made as warnings.
func (d *Drill) explainDeleting(ctx context.Context, c *Chain) []string {
	var warnings []string
	explain := func(gk schema.GroupKind, ns, name string) *finalizers.Explanation {
		if d.Catalog == nil || d.Explainer == nil {
			warnings = append(warnings, fmt.Sprintf("explaining %s %s/%s: API discovery unavailable", gk.Kind, ns, name))
			return nil
		}
		res, err := d.Catalog.ResolveGroupKind(gk)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("explaining %s %s/%s: %v", gk.Kind, ns, name, err))
			return nil
		}
		exp, err := d.Explainer.Explain(ctx, res, ns, name)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("explaining %s %s/%s: %v", gk.Kind, ns, name, err))
			return nil
		}
		if exp.Incomplete() {
			warnings = append(warnings, fmt.Sprintf("explaining %s %s/%s: some reads failed, see its finalizers", gk.Kind, ns, name))
		}
		return exp
	}
	for _, n := range c.Kustomizations {
		if n.Deleting {
			n.Terminating = explain(kustomizev1.GroupVersion.WithKind(kustomizev1.KustomizationKind).GroupKind(), n.Namespace, n.Name)
		}
		for i := range n.HelmReleases {
			if hr := &n.HelmReleases[i]; hr.Deleting {
				hr.Terminating = explain(helmv2.GroupVersion.WithKind(helmv2.HelmReleaseKind).GroupKind(), hr.Namespace, hr.Name)
			}
		}
	}
	return warnings
}
