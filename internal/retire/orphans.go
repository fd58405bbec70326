package retire

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

const (
	ownerNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	ownerNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
	fluxManager         = "kustomize-controller"
)

// Orphan is an object kustomize-controller applied that no Kustomization lists any more.
type Orphan struct {
	Object Ref    `json:"object"`
	ID     string `json:"id"`
	// Kustomization is the owner its labels still name.
	Kustomization string `json:"kustomization"`
	Age           string `json:"age"`
	Protected     bool   `json:"protected"`
}

// Orphans is what FindOrphans found.
type Orphans struct {
	// Kustomizations are every Kustomization whose inventory was read, namespace/name.
	Kustomizations []string
	Orphans        []Orphan
	// Incomplete names what could not be read, or why the inventories may still change.
	Incomplete []report.Gap
	// Unchecked are the reads of Flux objects that failed: gaps that do not change the
	// verdict, as the inventories were read.
	Unchecked []report.Gap
}

// FindOrphans lists the objects that carry kustomize-controller's owner label and a
// kustomize-controller managedFields entry but are in no Kustomization's inventory: retained
// leftovers waiting for stage 4. While any Kustomization is not Ready at its source's revision
// the inventories may be about to change, so the answer is incomplete.
func FindOrphans(ctx context.Context, c *cluster.Clients) (*Orphans, error) {
	objs, err := flux.Read(ctx, c.Dynamic, "")
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("%v on %s: is Flux installed?", err, c.Target)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	out := &Orphans{Unchecked: objs.Gaps}
	for _, ks := range objs.Kustomizations {
		out.Kustomizations = append(out.Kustomizations, ks.Namespace+"/"+ks.Name)
	}
	inv := inventoryHere(objs.Kustomizations)
	for _, n := range flux.Build(objs).Kustomizations {
		if n.State != flux.Ready || n.RevisionLag {
			out.Incomplete = append(out.Incomplete, notJudged(Kustomization{Namespace: n.Namespace, Name: n.Name}.GapID(), report.GapNotReady,
				fmt.Sprintf("Kustomization %s is %s, not Ready at its source's revision", n.ID, n.State), "its inventory may still change"))
		}
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return nil, cluster.ReadError(c.Target, "discovering the API", err)
	}
	out.Orphans, out.Incomplete = sweep(ctx, c, catalog, inv, out.Incomplete)
	out.Incomplete = append(out.Incomplete, ownersElsewhere(out.Orphans, out.Kustomizations)...)
	return out, nil
}

// ownersElsewhere names, once per Kustomization, the orphans labelled for a Kustomization that
// is not on this cluster: a leftover of one that was deleted, or an object a Kustomization of
// another cluster (a hub) applies here through its spec.kubeConfig and still lists in an
// inventory this run does not read. Nothing here tells the two apart, so it is not known to be
// an orphan (UNKNOWN).
func ownersElsewhere(orphans []Orphan, here []string) []report.Gap {
	count := map[string]int{}
	var order []string
	for _, o := range orphans {
		if slices.Contains(here, o.Kustomization) {
			continue
		}
		if count[o.Kustomization] == 0 {
			order = append(order, o.Kustomization)
		}
		count[o.Kustomization]++
	}
	var out []report.Gap
	for _, ks := range order {
		ns, name, _ := strings.Cut(ks, "/")
		out = append(out, notJudged(Kustomization{Namespace: ns, Name: name}.GapID(), report.GapNotRead,
			fmt.Sprintf("%d object(s) labelled for Kustomization %s, which is not on this cluster", count[ks], ks),
			"a leftover of a deleted Kustomization, or applied here by a Kustomization of another cluster through its spec.kubeConfig, whose inventory this run does not read"))
	}
	return out
}

// inventoryHere is every id the inventories of kss list for this cluster: a Kustomization
// with spec.kubeConfig applies to the cluster that names (a hub reconciling spokes), so its
// inventory lists that cluster's objects, and an object of the same id here is another object,
// which it does not keep from being an orphan.
func inventoryHere(kss []kustomizev1.Kustomization) map[string]bool {
	inv := map[string]bool{}
	for _, ks := range kss {
		if ks.Spec.KubeConfig != nil || ks.Status.Inventory == nil {
			continue
		}
		for _, e := range ks.Status.Inventory.Entries {
			inv[e.ID] = true
		}
	}
	return inv
}

// sweep lists every listable type for objects with the owner label, page by page
// (finalizers.Sweep), keeping those Flux applied that no inventory lists.
func sweep(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, inv map[string]bool, incomplete []report.Gap) ([]Orphan, []report.Gap) {
	now := time.Now()
	// Keep sees managedFields, which the sweep drops from what it keeps.
	keep := func(r kinds.Resource, m *metav1.PartialObjectMetadata) bool {
		return appliedByFlux(m) && !inv[refOf(r, m).ID()]
	}
	scan := finalizers.Sweep(ctx, c, catalog, finalizers.ScanOptions{LabelSelector: ownerNameLabel, Keep: keep})
	var orphans []Orphan
	for _, t := range scan.Types {
		for i := range t.Items {
			orphans = append(orphans, orphan(&t.Items[i], t.Resource, now))
		}
	}
	for _, f := range scan.Failed {
		incomplete = append(incomplete, f.Gap("", "listing "+f.Resource))
	}
	sort.Slice(orphans, func(i, j int) bool { return orphans[i].ID < orphans[j].ID })
	slices.SortFunc(incomplete, func(a, b report.Gap) int { return strings.Compare(a.String(), b.String()) })
	return orphans, incomplete
}

// appliedByFlux reports whether kustomize-controller's field manager wrote the object.
func appliedByFlux(m *metav1.PartialObjectMetadata) bool {
	for _, f := range m.ManagedFields {
		if f.Manager == fluxManager {
			return true
		}
	}
	return false
}

func refOf(r kinds.Resource, m *metav1.PartialObjectMetadata) Ref {
	return Ref{Group: r.Group, Kind: r.Kind, Namespace: m.Namespace, Name: m.Name}
}

func orphan(m *metav1.PartialObjectMetadata, r kinds.Resource, now time.Time) Orphan {
	ref := refOf(r, m)
	return Orphan{
		Object: ref, ID: ref.ID(),
		Kustomization: m.Labels[ownerNamespaceLabel] + "/" + m.Labels[ownerNameLabel],
		Age:           finalizers.Age(now.Sub(m.CreationTimestamp.Time)),
		Protected:     objectOptOut(metadataOf(m)) != "",
	}
}

// metadataOf is m's labels and annotations as an object ssa's helpers read.
func metadataOf(m *metav1.PartialObjectMetadata) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetLabels(m.Labels)
	u.SetAnnotations(m.Annotations)
	return u
}
