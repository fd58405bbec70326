package retire

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Unit is one Kustomization with what its path builds to at base and at candidate.
type Unit struct {
	Kustomization Kustomization
	Base          []*unstructured.Unstructured
	Candidate     []*unstructured.Unstructured
	// Inventory is the live status.inventory (ids); nil when it was not read (offline).
	Inventory []string
	// Live is set in live mode, where only inventory entries are pruned.
	Live bool
	// Removed is set when the candidate deletes the Kustomization itself: what it applied
	// goes according to its spec.deletionPolicy, not its spec.prune.
	Removed bool
	// PathGone is the candidate build's error when its path is absent at the candidate (live,
	// where the cluster's Kustomizations are built at both revisions): the expected shape of
	// an undeploy when its parent deletes it, a gap when it stays.
	PathGone string
}

// MarkRemoved sets Removed on every unit whose Kustomization a base build declares and no
// candidate build does, and that its parent really deletes (live, the cluster still holds it and
// its path still builds), and drops its candidate objects: all it applied is at stake. A child
// its parent keeps instead, as optOut decides for any object the parent stops declaring (the
// parent does not prune, or is deleted while suspended or with deletionPolicy Orphan, or the
// child's manifest opts out), stays on the cluster and goes on reconciling its
// path at the candidate revision: judged on that build when there is one (live, where the
// cluster's Kustomizations are built at the candidate), else left out of judged with the
// reason in incomplete (never judged as deleted, never as unchanged). A child that a deleted
// child declared is deleted with it, to any depth. A child whose path the candidate no longer
// has (live: its ks.yaml and its directory removed together) is judged as deleted when its
// parent deletes it, from its base build and its live inventory; if it stays, that is a gap.
func MarkRemoved(units []Unit) (judged []Unit, incomplete []report.Gap) {
	type declaration struct {
		by  int
		obj *unstructured.Unstructured
	}
	units = slices.Clone(units)
	declared := func(candidate bool) map[string]declaration {
		m := map[string]declaration{}
		for i, u := range units {
			objs := u.Base
			if candidate {
				objs = u.Candidate
			}
			for _, o := range objs {
				if gvk := o.GroupVersionKind(); gvk.Group == fluxKustomizeGroup && gvk.Kind == "Kustomization" {
					m[o.GetNamespace()+"/"+o.GetName()] = declaration{by: i, obj: o}
				}
			}
		}
		return m
	}
	before := declared(false)
	// deleted marks the Kustomizations their parents delete. A deleted child takes what it
	// applied with it, so the Kustomizations it declared go too: repeated until nothing
	// changes, so nested children are followed to any depth.
	deleted, kept := map[string]bool{}, map[string]string{}
	for changed := true; changed; {
		changed = false
		after := declared(true)
		for i := range units {
			id := units[i].Kustomization.ID()
			d, was := before[id]
			if _, is := after[id]; !was || is || deleted[id] {
				continue
			}
			parent := Unit{Kustomization: units[d.by].Kustomization, Removed: deleted[units[d.by].Kustomization.ID()]}
			if why := optOut(parent, &Removal{base: d.obj}); why != "" {
				kept[id] = why
				continue
			}
			delete(kept, id)
			deleted[id], changed = true, true
			units[i].Removed, units[i].Candidate = true, nil
		}
	}
	for _, u := range units {
		id := u.Kustomization.ID()
		switch {
		case deleted[id]:
			judged = append(judged, u)
		case u.PathGone != "":
			why := "the candidate still declares it"
			if kept[id] != "" {
				why = "the candidate no longer declares it, but it is kept by " + kept[id]
			}
			incomplete = append(incomplete, notJudged(u.Kustomization.GapID(), report.GapNotFound, "Kustomization "+id,
				fmt.Sprintf("its path %s is not in the candidate (%s), and %s, so it stays on the cluster and cannot build that revision: what it prunes is not judged", u.Kustomization.Path, u.PathGone, why)))
		case kept[id] != "" && u.Removed:
			incomplete = append(incomplete, notJudged(u.Kustomization.GapID(), report.GapUnsupported, "Kustomization "+id,
				fmt.Sprintf("the candidate no longer declares it, but it is kept by %s, so it stays on the cluster and goes on reconciling its path %s at the candidate revision, which is not built here: what it prunes then is not judged", kept[id], u.Kustomization.Path)))
		default:
			// Unchanged, or kept with its path built at the candidate too (live: it is on
			// the cluster), so what it prunes when it reconciles that revision is judged
			// exactly.
			judged = append(judged, u)
		}
	}
	return judged, incomplete
}

// Diff lists, per Kustomization, every object present at base or in the live inventory and
// absent from its candidate build. An object that another Kustomization's candidate declares is
// a move. Outcomes are not decided yet: Judge does that once the live facts are in. An
// inventory id that does not parse is never skipped: it is returned in unparsed, named with
// its Kustomization, and the verdict cannot be SAFE.
func Diff(units []Unit) (rs []Removal, unparsed []report.Gap) {
	// Keyed by the cluster too: the same id applied to another cluster (spec.kubeConfig) is
	// another object, so dropping it here is no move.
	declaredBy := map[string]string{}
	for _, u := range units {
		for _, o := range u.Candidate {
			declaredBy[u.Kustomization.Cluster+"\x00"+RefOf(o).ID()] = u.Kustomization.ID()
		}
	}
	var out []Removal
	for _, u := range units {
		cand := inventory.IDs(u.Candidate)
		inv := map[string]bool{}
		for _, id := range u.Inventory {
			inv[id] = true
		}
		seen := map[string]bool{}
		add := func(ref Ref, base *unstructured.Unstructured) {
			id := ref.ID()
			if cand[id] || seen[id] {
				return
			}
			seen[id] = true
			r := Removal{Object: ref, ID: id, Kustomization: u.Kustomization.ID(), Cluster: u.Kustomization.Cluster, InInventory: inv[id], base: base}
			if to, ok := declaredBy[u.Kustomization.Cluster+"\x00"+id]; ok && to != u.Kustomization.ID() {
				r.MovedTo = to
			}
			out = append(out, r)
		}
		for _, o := range u.Base {
			add(RefOf(o), o)
		}
		for _, id := range u.Inventory {
			ref, err := ParseID(id)
			if err != nil {
				unparsed = append(unparsed, report.Gap{Op: report.OpDecode, Subject: u.Kustomization.GapID(), Reason: report.GapDecodeError, What: "Kustomization " + u.Kustomization.ID(),
					Error: fmt.Sprintf("its inventory lists an entry that is not an object id, so what it prunes is unknown: %v", err)})
				continue
			}
			add(ref, nil)
		}
	}
	sortRemovals(out)
	return out, unparsed
}

func sortRemovals(rs []Removal) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Kustomization != rs[j].Kustomization {
			return rs[i].Kustomization < rs[j].Kustomization
		}
		return rs[i].ID < rs[j].ID
	})
}

// Judge decides each removal's outcome and safety. Opt-outs are read from the live object when
// the live gate saw it (that is what kustomize-controller reads before pruning), otherwise from
// the base manifest. Unprotected persistent state that Flux would prune, or hand over to another
// Kustomization, is unsafe.
func Judge(rs []Removal, units []Unit, k Kinds) {
	byID := map[string]Unit{}
	for _, u := range units {
		byID[u.Kustomization.ID()] = u
	}
	all := allBase(units)
	sources := helmjudge.ChartSources(all)
	var cand []*unstructured.Unstructured
	for _, u := range units {
		cand = append(cand, u.Candidate...)
	}
	for i := range rs {
		r := &rs[i]
		if r.HelmDrop != nil {
			judgeHelmDrop(r, k, all)
			continue
		}
		if r.Outcome == Upgraded {
			continue // helmUpgrades judged it
		}
		u := byID[r.Kustomization]
		r.OptOut = optOut(u, r)
		r.KustomizationDeleted = u.Removed
		if r.Object.GroupKind() == helmReleaseKind {
			r.Helm = judgeHelm(r, k, sources)
		}
		r.Persistent = k.Persistence(r, all)
		if r.MovedTo != "" && r.Persistent == nil {
			c := cascadeOf(r, byID, k)
			r.Persistent, r.cascadeUnseen = c.persistence(r.Object), c.unseen()
		}
		if r.Object.Kind == "PersistentVolumeClaim" && r.Object.Group == "" {
			r.DeclaredConsumers = mounters(r.Object, cand)
		}
		switch {
		case r.MovedTo != "":
			r.Outcome = Moved
		case r.OptOut != "":
			r.Outcome = Retained
		case u.Live && !r.InInventory:
			r.Outcome = NotManaged
		default:
			r.Outcome = Pruned
		}
		judgeSafety(r, u)
	}
}

func judgeSafety(r *Removal, u Unit) {
	r.Unsafe = false
	r.resetReasons()
	switch r.Outcome {
	case Pruned:
		if r.Persistent == nil {
			if r.stateKept != "" && r.OptOut == "" {
				r.addReason(ReasonPruneStateless, fmt.Sprintf("%s prunes %s, whose operator keeps what it made (%s): deleting it loses no state", Applier(r.Kustomization), r.Object, r.stateKept))
			}
			break
		}
		r.Unsafe = true
		if r.base != nil && objectOptOutOf(r.base, exclusionsFor(u.Kustomization)) != "" {
			r.addReason(ReasonProtectionNotApplied, fmt.Sprintf("the protection is merged but the live object does not carry it yet: %s prunes %s unless it applies that revision first", Applier(r.Kustomization), r.Object))
			break
		}
		if u.Removed {
			r.addReason(ReasonKustomizationDeletedPersistent, fmt.Sprintf("the candidate deletes %s, and its deletionPolicy %s deletes %s, which holds persistent state (%s), and nothing protects it", Applier(r.Kustomization), policy(u.Kustomization), r.Object, r.Persistent.Detail))
			break
		}
		code := ReasonPrunePersistent
		if r.Helm != nil {
			code = ReasonHelmUninstallPersistent
		}
		r.addReason(code, fmt.Sprintf("%s prunes %s, which holds persistent state (%s), and nothing protects it", Applier(r.Kustomization), r.Object, r.Persistent.Detail))
	case Moved:
		why := fmt.Sprintf("moves from %s to %s: whichever reconciles first decides; if %s prunes it before %s adopts it, it is deleted and recreated", Applier(r.Kustomization), Applier(r.MovedTo), r.Kustomization, r.MovedTo)
		code := ReasonMoved
		if r.Persistent != nil && r.OptOut == "" {
			r.Unsafe, code = true, ReasonMovePersistent
			why += fmt.Sprintf(", losing its persistent state (%s). Protect it in %s first", r.Persistent.Detail, r.Kustomization)
		}
		r.addReason(code, why)
	}
	if len(r.DeclaredConsumers) > 0 && r.Outcome != Moved {
		names := make([]string, len(r.DeclaredConsumers))
		for i, c := range r.DeclaredConsumers {
			names[i] = c.String()
		}
		r.addReason(ReasonClaimStillMounted, "the candidate still mounts the claim in "+strings.Join(names, ", ")+": drain those mounts in git first")
		r.Unsafe = r.Unsafe || r.Outcome == Pruned
	}
	r.classify()
}

// optOut names what keeps the object from being pruned, or "" when nothing does. A
// Kustomization the candidate deletes deletes what it applied as kustomize-controller's
// finalizer decides: not when suspended; per spec.deletionPolicy, MirrorPrune (the default)
// following spec.prune, Delete and WaitForTermination always, Orphan never. Per-object
// opt-outs hold either way.
func optOut(u Unit, r *Removal) string {
	ks := u.Kustomization
	switch {
	case u.Removed && ks.Suspend:
		return "Kustomization " + ks.ID() + " is suspended, so deleting it deletes nothing"
	case u.Removed && ks.DeletionPolicy == kustomizev1.DeletionPolicyOrphan:
		return "spec.deletionPolicy Orphan on Kustomization " + ks.ID() + ", which the candidate deletes"
	case u.Removed && (ks.DeletionPolicy == kustomizev1.DeletionPolicyDelete || ks.DeletionPolicy == kustomizev1.DeletionPolicyWaitForTermination):
	case !ks.Prune:
		return "spec.prune is false on Kustomization " + ks.ID()
	}
	return objectOptOutOf(metadataFor(r), exclusionsFor(ks))
}

// policy names a Kustomization's deletion policy, with what the default follows.
func policy(ks Kustomization) string {
	if ks.DeletionPolicy == "" || ks.DeletionPolicy == kustomizev1.DeletionPolicyMirrorPrune {
		return fmt.Sprintf("MirrorPrune (prune: %t)", ks.Prune)
	}
	return ks.DeletionPolicy
}

// fluxKustomizeGroup is the API group of Flux Kustomizations.
const fluxKustomizeGroup = "kustomize.toolkit.fluxcd.io"

func allBase(units []Unit) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, u := range units {
		out = append(out, u.Base...)
	}
	return out
}
