package retire

import (
	"slices"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// A hub's Kustomization with spec.kubeConfig lists the objects it applied to a spoke
// (fluxcd/flux2-hub-spoke-example): an object of the same id on the hub is another object,
// which that inventory does not keep from being the hub's orphan; the hub's own
// Kustomizations' inventories do.
func TestInventoryHereLeavesOutSpokes(t *testing.T) {
	ks := func(name string, kubeConfig bool, ids ...string) kustomizev1.Kustomization {
		k := kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Namespace: "flux-system", Name: name}}
		if kubeConfig {
			k.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: name + "-kubeconfig"}}
		}
		inv := &kustomizev1.ResourceInventory{}
		for _, id := range ids {
			inv.Entries = append(inv.Entries, kustomizev1.ResourceRef{ID: id, Version: "v1"})
		}
		k.Status.Inventory = inv
		return k
	}
	inv := inventoryHere([]kustomizev1.Kustomization{
		ks("apps", false, "apps_web__ConfigMap"),
		ks("prod", true, "apps_web__ConfigMap", "podinfo_podinfo__ConfigMap"),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "flux-system", Name: "new"}},
	})
	var got []string
	for id := range inv {
		got = append(got, id)
	}
	slices.Sort(got)
	if want := []string{"apps_web__ConfigMap"}; !slices.Equal(got, want) {
		t.Errorf("ids kept from being orphans %q, want only the hub's own %q", got, want)
	}
}

// Run against a spoke, the objects a hub's Kustomization applies there are labelled for a
// Kustomization that is not on this cluster: they are not known to be orphans (UNKNOWN, once
// per Kustomization), while those labelled for one of this cluster's are.
func TestOwnersElsewhere(t *testing.T) {
	orphans := []Orphan{
		{ID: "podinfo_a__ConfigMap", Kustomization: "flux-system/podinfo-prod"},
		{ID: "podinfo_b__ConfigMap", Kustomization: "flux-system/podinfo-prod"},
		{ID: "apps_c__ConfigMap", Kustomization: "flux-system/apps"},
	}
	gaps := ownersElsewhere(orphans, []string{"flux-system/apps"})
	if len(gaps) != 1 || gaps[0].Reason != report.GapNotRead || gaps[0].Subject.Name != "podinfo-prod" ||
		gaps[0].What != "2 object(s) labelled for Kustomization flux-system/podinfo-prod, which is not on this cluster" {
		t.Errorf("gaps %+v: want one, naming flux-system/podinfo-prod and its 2 objects", gaps)
	}
}
