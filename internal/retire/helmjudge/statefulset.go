package helmjudge

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// StatefulSetDetail is what deleting StatefulSet sts loses, "" when it has no
// volumeClaimTemplates: its retention policy says whether the claims go with it. retire says
// it of every StatefulSet, in a release or not.
func StatefulSetDetail(sts *unstructured.Unstructured) string {
	tpls, policy := claimTemplates(sts)
	if len(tpls) == 0 {
		return ""
	}
	if policy == "Delete" {
		return fmt.Sprintf("%d volumeClaimTemplates with whenDeleted: Delete: its claims and their data are deleted with it%s", len(tpls), claimNamesText(sts))
	}
	return fmt.Sprintf("%d volumeClaimTemplates with whenDeleted: %s: its pods go and its claims are left orphaned%s", len(tpls), policy, claimNamesText(sts))
}

// maxNamedClaims bounds the claims named from a manifest's replicas.
const maxNamedClaims = 10

// claimNamesText names, from the manifest, the claims a StatefulSet makes (templateClaimNames),
// at most maxNamedClaims of them; a live read lists those that exist
// (Reader.TemplateClaims).
func claimNamesText(sts *unstructured.Unstructured) string {
	var names []string
	for _, c := range templateClaimNames(sts) {
		if len(names) == maxNamedClaims {
			return " (" + strings.Join(names, ", ") + ", …)"
		}
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// claimTemplates are a StatefulSet's volumeClaimTemplates and what becomes of their claims
// when it is deleted: its persistentVolumeClaimRetentionPolicy.whenDeleted, Retain by default.
func claimTemplates(sts *unstructured.Unstructured) (tpls []any, whenDeleted string) {
	tpls, _, _ = unstructured.NestedSlice(sts.Object, "spec", "volumeClaimTemplates")
	whenDeleted, _, _ = unstructured.NestedString(sts.Object, "spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted")
	if whenDeleted == "" {
		whenDeleted = "Retain"
	}
	return tpls, whenDeleted
}

// templateClaimNames are the claims a StatefulSet's volumeClaimTemplates make, named as the
// StatefulSet controller names them: <template>-<statefulset>-<ordinal>, for each replica
// (spec.replicas, default 1).
func templateClaimNames(sts *unstructured.Unstructured) []inventory.Ref {
	if inventory.RefOf(sts).GroupKind() != "StatefulSet.apps" {
		return nil
	}
	tpls, _ := claimTemplates(sts)
	replicas, ok, _ := unstructured.NestedInt64(sts.Object, "spec", "replicas")
	if !ok {
		replicas = 1
	}
	var out []inventory.Ref
	for _, t := range tpls {
		m, _ := t.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "metadata", "name")
		for i := range min(replicas, 100) {
			out = append(out, inventory.Ref{Kind: "PersistentVolumeClaim", Namespace: sts.GetNamespace(), Name: fmt.Sprintf("%s-%s-%d", name, sts.GetName(), i)})
		}
	}
	return out
}
