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
// hand), every Kustomization and HelmRelease of the chain that is being deleted. It returns
// the explanations by the objects' fully qualified names, so an object a health check names
// or a root cause lists is explained with the same reads, and the explanations that could not
// be made as warnings.
func (d *Drill) explainDeleting(ctx context.Context, c *Chain) (map[string]*finalizers.Explanation, []string) {
	var warnings []string
	known := map[string]*finalizers.Explanation{}
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
	return known, warnings
}

// helmReleaseRef renders a HelmRelease fully qualified, the way kubectl accepts it back.
func helmReleaseRef(namespace, name string) string {
	return objectRef(HelmReleaseGVR.GroupResource().String(), namespace, name)
}
