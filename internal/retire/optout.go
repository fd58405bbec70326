package retire

import (
	"maps"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/resourceset"
)

// pruneExclusions are the Exclusions kustomize-controller gives fluxcd/pkg/ssa's DeleteAll when
// it prunes or garbage-collects: an object whose labels or annotations hold any of them, the
// value compared case-insensitively (ssa's utils.AnyInMetadata), is left in place.
var pruneExclusions = map[string]string{
	PruneAnnotation:     Disabled,
	ReconcileAnnotation: Disabled,
	SSAAnnotation:       "Ignore",
}

// resourceSetExclusions are what keeps Flux Operator from deleting an object a ResourceSet no
// longer renders; kustomize-controller's exclusions do not apply to it.
var resourceSetExclusions = map[string]string{
	resourceset.PruneAnnotation: Disabled,
}

// exclusionsFor are the opt-outs the owner of a unit honours.
func exclusionsFor(k Kustomization) map[string]string {
	if k.Kind == gitops.OwnerResourceSet {
		return resourceSetExclusions
	}
	return pruneExclusions
}

// objectOptOut names the exclusion that keeps obj from being deleted, "" when none does. The
// decision is ssa's own; this only says which key, and whether as a label or an annotation.
func objectOptOut(obj *unstructured.Unstructured) string {
	return objectOptOutOf(obj, pruneExclusions)
}

// objectOptOutOf is objectOptOut for the given exclusions.
func objectOptOutOf(obj *unstructured.Unstructured, exclusions map[string]string) string {
	if obj == nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(exclusions)) {
		v := exclusions[k]
		if !utils.AnyInMetadata(obj, map[string]string{k: v}) {
			continue
		}
		if a := obj.GetAnnotations()[k]; a != "" && strings.EqualFold(a, v) {
			return k + ": " + a
		}
		return "label " + k + ": " + obj.GetLabels()[k]
	}
	return ""
}

// metadataFor is the metadata Flux reads before deleting: the live object's opt-outs when it
// exists, else the base manifest's labels and annotations.
func metadataFor(r *Removal) *unstructured.Unstructured {
	if r.Live != nil && r.Live.Exists {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetAnnotations(r.Live.Annotations)
		u.SetLabels(r.Live.Labels)
		return u
	}
	return r.base
}
