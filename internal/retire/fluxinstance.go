package retire

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
)

// defaultFluxComponents are the controllers a FluxInstance without spec.components installs
// (flux-operator docs/api/v1/fluxinstance.md, "Components").
var defaultFluxComponents = []string{"source-controller", "kustomize-controller", "helm-controller", "notification-controller"}

// fluxInstanceGaps names every FluxInstance both revisions declare whose candidate drops a
// component: the Flux Operator deletes that controller and its CRDs, and with a CRD every
// object of it in the cluster, which the repository need not declare (controlplaneio-fluxcd/
// d2-fleet 89d842c dropped helm-controller and notification-controller). What that deletes is
// not judged here, so it is UNKNOWN, never SAFE.
func fluxInstanceGaps(base, cand *gitops.Tree) []report.Gap {
	if base == nil || cand == nil {
		return nil
	}
	before, after := fluxInstances(base), fluxInstances(cand)
	var gaps []report.Gap
	for _, id := range slices.Sorted(maps.Keys(before)) {
		b, c := before[id], after[id]
		if c == nil {
			continue // a FluxInstance removed is judged as a removal (a persistent kind)
		}
		kept := components(c)
		var dropped []string
		for _, name := range components(b) {
			if !slices.Contains(kept, name) {
				dropped = append(dropped, name)
			}
		}
		if len(dropped) == 0 {
			continue
		}
		ref := RefOf(b)
		gaps = append(gaps, notJudged(ref.GapID(), report.GapUnsupported, fmt.Sprintf("FluxInstance %s/%s", b.GetNamespace(), b.GetName()),
			fmt.Sprintf("the candidate drops its components %s: the Flux Operator deletes those controllers and their CRDs, and with a CRD every object of it in the cluster, so what that deletes is not judged", strings.Join(dropped, ", "))))
	}
	return gaps
}

// fluxInstances are the FluxInstances a revision's builds declare, by object id.
func fluxInstances(t *gitops.Tree) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	tiers := []*gitops.Tier{t.EntryBuild}
	for _, id := range t.IDs() {
		tiers = append(tiers, t.Tiers[id])
	}
	for _, tier := range tiers {
		for _, o := range tier.Objects {
			if RefOf(o).GroupKind() == fluxInstanceKind {
				out[kbuild.ObjectID(o)] = o
			}
		}
	}
	return out
}

// components lists a FluxInstance's spec.components, the operator's defaults when it has none.
func components(fi *unstructured.Unstructured) []string {
	list, _, _ := unstructured.NestedStringSlice(fi.Object, "spec", "components")
	if len(list) == 0 {
		return defaultFluxComponents
	}
	return list
}
