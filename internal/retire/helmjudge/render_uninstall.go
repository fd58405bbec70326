package helmjudge

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// renderedUninstall is what deleting HelmRelease r uninstalls, from its base render: every
// persistent object of the manifest (claims first, a StatefulSet's template claims by the names
// the StatefulSet controller gives them, CRDs with the custom resources declared at base), those
// helm.sh/resource-policy: keep leaves, the crds/ Helm never deletes, and a count of the rest.
func renderedUninstall(r Removed, k Kinds, rd *helmrender.Render) *Uninstall {
	h := &Uninstall{Release: rd.Release, Rendered: chartText(rd)}
	if s, _, _ := unstructured.NestedBool(r.Base.Object, "spec", "suspend"); s {
		h.NoUninstall = "spec.suspend is true at base: helm-controller deletes a suspended HelmRelease without uninstalling, and its objects stay, unmanaged"
		return h
	}
	for _, o := range rd.Manifest {
		ref := inventory.RefOf(o)
		ho := Object{Object: ref, InManifest: true, Keep: helm.IsKeep(o.GetAnnotations()[helm.ResourcePolicyAnnotation])}
		claims := templateClaimNames(o)
		if ref.GroupKind() == "StatefulSet.apps" {
			_, policy := claimTemplates(o)
			if len(claims) > 0 {
				ho.Detail = fmt.Sprintf("volumeClaimTemplates, whenDeleted: %s", policy)
			}
			for _, c := range claims {
				via := Object{Object: c, Via: fmt.Sprintf("a volumeClaimTemplates claim of StatefulSet %s/%s (whenDeleted: %s)", o.GetNamespace(), o.GetName(), policy), WithOwner: policy == "Delete" && !ho.Keep}
				if via.WithOwner {
					h.Deleted = append(h.Deleted, via)
				} else {
					h.Left = append(h.Left, via)
				}
			}
		}
		if c := cascade(o); c != "" {
			h.Cascades = append(h.Cascades, c)
		}
		persistent := k.Has(ref) && (ref.GroupKind() != "StatefulSet.apps" || len(claims) > 0)
		if where := StateOnDelete(o).Deletes; where != "" && !k.Has(ref) {
			persistent, ho.Detail = true, where
		}
		switch {
		case !persistent:
			if h.Others == nil {
				h.Others = map[string]int{}
			}
			h.Others[ref.GroupKind()]++
		case ho.Keep:
			h.Left = append(h.Left, ho)
		default:
			h.Deleted = append(h.Deleted, ho)
		}
	}
	if rd.InstallCRDs != "Skip" {
		for _, o := range rd.CRDs {
			h.Left = append(h.Left, Object{Object: inventory.RefOf(o), Via: "in the chart's crds/, which Helm installs and never deletes"})
		}
	}
	claimsFirst(h.Deleted)
	claimsFirst(h.Left)
	return h
}

// cascade says what deleting o prunes when o is a Flux Kustomization whose deletion garbage-
// collects what it applied (spec.prune with the default deletionPolicy, or Delete or
// WaitForTermination, and not suspended), "" otherwise. A chart that renders one (a cluster
// chart that renders the sync of the cluster it makes) deletes it on uninstall.
func cascade(o *unstructured.Unstructured) string {
	if o.GroupVersionKind().Group != "kustomize.toolkit.fluxcd.io" || o.GetKind() != "Kustomization" {
		return ""
	}
	spec, _ := o.Object["spec"].(map[string]any)
	prune, _ := spec["prune"].(bool)
	suspend, _ := spec["suspend"].(bool)
	policy, _ := spec["deletionPolicy"].(string)
	deletes := policy == "Delete" || policy == "WaitForTermination" || ((policy == "" || policy == "MirrorPrune") && prune)
	if !deletes || suspend {
		return ""
	}
	path, _ := spec["path"].(string)
	where := ""
	if kc, ok := spec["kubeConfig"].(map[string]any); ok && kc != nil {
		where = ", on the cluster its kubeConfig names"
	}
	return fmt.Sprintf("Kustomization %s/%s, whose deletion prunes what it applied from path %s%s", o.GetNamespace(), o.GetName(), path, where)
}
