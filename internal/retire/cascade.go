package retire

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// resourceSetGroupKind is the Flux Operator's ResourceSet, which deletes what it applied when
// it is deleted (its prune is always on), unless an object opts out.
const resourceSetGroupKind = "ResourceSet.fluxcd.controlplane.io"

// fluxKustomizationGroupKind is a Flux Kustomization as a Ref names its kind.
const fluxKustomizationGroupKind = "Kustomization." + fluxKustomizeGroup

// maxCascadeNamed is how many objects a cascade's detail names before it counts the rest.
const maxCascadeNamed = 4

// cascade is what deleting a Flux Kustomization or ResourceSet deletes with it: the objects it
// applied (and, through the appliers among them, what those applied), as its finalizer does.
type cascade struct {
	// persistent are the objects of a persistent kind (Kinds), or custom resources that ask
	// their operator for storage, that the deletion deletes.
	persistent []string
	// releases are the HelmReleases it deletes: each uninstall is judged nowhere here.
	releases []string
	// unbuilt are the appliers whose build this run does not have, so what they applied is
	// unknown.
	unbuilt []string
}

// cascadeOf walks what deleting the applier r.Object deletes (nil when r.Object is no applier,
// or its deletion deletes nothing: suspended, deletionPolicy Orphan, or prune off under
// MirrorPrune). A Flux Kustomization that moves from one applier to another is deleted and
// recreated when the old one prunes it first; its finalizer then deletes everything it had
// applied (JiwooL0920/fleet-infra 94bb8de: the root stopped declaring every app's Kustomization
// and declared category Kustomizations that declare them, in the same commit, so the root pruned
// the apps' Kustomizations, a CloudNativePG Cluster among what they applied, before the new
// owners existed).
func cascadeOf(r *Removal, byID map[string]Unit, k Kinds) *cascade {
	id, ok := applierID(r.Object)
	if !ok || !deletes(r.base, r.Object) {
		return nil
	}
	c := &cascade{}
	seen := map[string]bool{}
	queue := []string{id}
	for len(queue) > 0 {
		id, queue = queue[0], queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		u, ok := byID[id]
		if !ok {
			c.unbuilt = append(c.unbuilt, id)
			continue
		}
		for _, o := range u.Base {
			if objectOptOutOf(o, exclusionsFor(u.Kustomization)) != "" {
				continue
			}
			ref := RefOf(o)
			switch next, isApplier := applierID(ref); {
			case isApplier:
				if deletes(o, ref) {
					queue = append(queue, next)
				}
			case ref.GroupKind() == helmReleaseKind:
				c.releases = append(c.releases, ref.String())
			case k.Has(ref) || helmjudge.StateOnDelete(o).Deletes != "":
				c.persistent = append(c.persistent, ref.String())
			}
		}
	}
	return c
}

// applierID is the unit id of ref when it is a Flux Kustomization or a ResourceSet.
func applierID(ref Ref) (string, bool) {
	switch ref.GroupKind() {
	case fluxKustomizationGroupKind:
		return ref.Namespace + "/" + ref.Name, true
	case resourceSetGroupKind:
		return gitops.OwnerResourceSet + "/" + ref.Namespace + "/" + ref.Name, true
	}
	return "", false
}

// deletes reports whether deleting the applier o (as declared at base) deletes what it
// applied: kustomize-controller's finalizer by spec.deletionPolicy (MirrorPrune, the default,
// following spec.prune) unless suspended; a ResourceSet always. Without its manifest, it is
// taken to delete.
func deletes(o *unstructured.Unstructured, ref Ref) bool {
	if o == nil || ref.GroupKind() != fluxKustomizationGroupKind {
		return true
	}
	if suspend, _, _ := unstructured.NestedBool(o.Object, "spec", "suspend"); suspend {
		return false
	}
	policy, _, _ := unstructured.NestedString(o.Object, "spec", "deletionPolicy")
	switch policy {
	case kustomizev1.DeletionPolicyOrphan:
		return false
	case kustomizev1.DeletionPolicyDelete, kustomizev1.DeletionPolicyWaitForTermination:
		return true
	}
	prune, _, _ := unstructured.NestedBool(o.Object, "spec", "prune")
	return prune
}

// persistence is the cascade's persistent state, nil when it deletes none.
func (c *cascade) persistence(what Ref) *Persistence {
	if c == nil || len(c.persistent) == 0 {
		return nil
	}
	detail := fmt.Sprintf("deleting %s deletes what it applied, %d object(s) of which hold persistent state: %s", what, len(c.persistent), named(c.persistent))
	if len(c.releases) > 0 {
		detail += fmt.Sprintf("; and it uninstalls %d HelmRelease(s)", len(c.releases))
	}
	return &Persistence{Detail: detail, Count: len(c.persistent)}
}

// unseen says what of the cascade is not judged, "" when all of it is.
func (c *cascade) unseen() string {
	if c == nil {
		return ""
	}
	var parts []string
	if len(c.releases) > 0 {
		parts = append(parts, "it uninstalls "+named(c.releases)+", whose uninstalls are not judged here")
	}
	if len(c.unbuilt) > 0 {
		parts = append(parts, "what "+named(c.unbuilt)+" applied was not built here")
	}
	return strings.Join(parts, "; ")
}

func named(list []string) string {
	list = slices.Clone(list)
	slices.Sort(list)
	if len(list) > maxCascadeNamed {
		return strings.Join(list[:maxCascadeNamed], ", ") + fmt.Sprintf(" and %d more", len(list)-maxCascadeNamed)
	}
	return strings.Join(list, ", ")
}

// MoveCascades names every moved Flux Kustomization or ResourceSet whose deletion, should its
// old applier prune it before the new one adopts it, deletes what is not judged here, when
// nothing persistent already makes the move unsafe.
func MoveCascades(rs []Removal) []report.Gap {
	var out []report.Gap
	for i := range rs {
		r := &rs[i]
		if r.Outcome != Moved || r.Persistent != nil || r.OptOut != "" || r.cascadeUnseen == "" {
			continue
		}
		out = append(out, notJudged(r.Object.GapID(), report.GapUnsupported, fmt.Sprintf("%s (%s)", r.Object, Applier(r.Kustomization)),
			fmt.Sprintf("if %s prunes it before %s adopts it, deleting it deletes what it applied: %s", Applier(r.Kustomization), Applier(r.MovedTo), r.cascadeUnseen)))
	}
	return out
}
