package retire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// pairing is every Kustomization's base and candidate builds paired into units, and the tiers
// that could not be: built from another source, unbuilt, or incomplete.
type pairing struct {
	units      []Unit
	notCovered []report.Gap
	unbuilt    []Unbuilt
	incomplete []report.Gap
	// notes are what was not judged and did not need to be (Report.Notes).
	notes []report.Note
}

// pairTiers pairs each Kustomization's base and candidate builds. One known on one side only is
// compared on that side: a Kustomization that the candidate deletes takes its objects with it
// when it prunes. A tier that did not build on a side it exists on is UNKNOWN, never unsafe:
// it is listed with the remote URLs it lacked and left out, as is a tier whose object names
// depend on unresolved variables; a tier built from another source is listed as not covered.
// A tier whose path is in neither revision is UNKNOWN, named, and every other tier is still
// judged; only when no tier's path is in the repository at all, and the Kustomizations were
// not read from the repository's own entry build (live), is it bad input.
func pairTiers(base, cand *gitops.Tree) (pairing, error) {
	var p pairing
	if base == nil || cand == nil {
		return p, nil
	}
	ids := map[string]bool{}
	for id := range base.Tiers {
		ids[id] = true
	}
	for id := range cand.Tiers {
		ids[id] = true
	}
	var absent []report.Gap
	matched := 0
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		bt, ct := base.Tiers[id], cand.Tiers[id]
		ks := ct
		if ks == nil {
			ks = bt
		}
		if bt != nil && ct != nil && bt.Kustomization.Source() != ct.Kustomization.Source() {
			p.incomplete = append(p.incomplete, notJudged(tierGapID(ct), report.GapUnsupported, "Kustomization "+id,
				fmt.Sprintf("the candidate switches its sourceRef from %s to %s, so what it prunes is not judged", bt.Kustomization.Source(), ct.Kustomization.Source())))
			continue
		}
		if parent := unbuiltDeclarer(base, cand, bt, ct); parent != "" {
			p.incomplete = append(p.incomplete, notJudged(tierGapID(bt), report.GapBuildFailed, "Kustomization "+id,
				fmt.Sprintf("Kustomization %s, which declares it, does not build at the candidate, so kustomize-controller applies and prunes nothing of that revision there and this one stays, reconciling its own path: what it prunes is not judged", parent)))
			continue
		}
		if ks.NotCovered != "" {
			p.notCovered = append(p.notCovered, ks.NotCoveredGap())
			why := changedElsewhere(base.FS, cand.FS, bt, ct)
			if why == "" && bt != nil && ct != nil {
				why = sourceSpecChanged(base, cand, ct.Kustomization)
			}
			if why != "" {
				p.incomplete = append(p.incomplete, notJudged(tierGapID(ks), report.GapUnsupported, "Kustomization "+id,
					fmt.Sprintf("built from another source (%s) and %s, so what it prunes is not judged", ks.Kustomization.Source(), why)))
			}
			continue
		}
		if keep := keepsAll(bt, ct); keep != "" {
			p.notes = append(p.notes, report.Note{Code: report.NoteTierKeepsAll, Subject: tierGapID(ks), Message: keep})
			continue
		}
		if missing(bt) && missing(ct) {
			absent = append(absent, notJudged(tierGapID(ks), report.GapNotFound, fmt.Sprintf("Kustomization %s (source %s, path %s)", id, ks.Kustomization.Source(), ks.Kustomization.Path),
				"its path is in neither revision of this repository, so what it prunes is not judged"))
			continue
		}
		matched++
		if bt != nil && ct != nil && ct.Unchanged && (bt.Err != nil || ct.Err != nil) {
			// None of its inputs changed: it removes nothing, though it cannot be built here
			// (Report.Unchanged lists it), and is no reason for UNKNOWN.
			continue
		}
		if note := unchangedResourceSet(id, bt, ct); note != "" {
			p.notes = append(p.notes, report.Note{Code: report.NoteResourceSetUnchanged, Subject: tierGapID(ks), Message: note})
			continue
		}
		if note := unchangedUnresolved(id, bt, ct); note != "" {
			p.notes = append(p.notes, report.Note{Code: report.NoteUnresolvedUnchanged, Subject: tierGapID(ks), Message: note})
			continue
		}
		if u, ok := p.pair(id, bt, ct); ok {
			p.units = append(p.units, u)
		}
	}
	if len(absent) > 0 && matched == 0 && base.Entry == "" && cand.Entry == "" {
		// Live, Kustomizations none of whose paths is here say the repository is another
		// one. Offline they were read from this repository's own entry build, so it is the
		// right one, and each absent path is UNKNOWN (stefanprodan/flux-local-dev: every tier
		// comes from an artifact pushed from its own subdirectory).
		return p, exitcode.UsageErrorf("no Kustomization's path is in the repository at base or candidate, e.g. %s (is --repo the repository its source builds? is --source-root its artifact's root?)", strings.TrimSuffix(absent[0].String(), ", so what it prunes is not judged"))
	}
	p.incomplete = append(p.incomplete, absent...)
	return p, nil
}

// pair makes the unit of tier id, or records why it cannot be judged.
func (p *pairing) pair(id string, bt, ct *gitops.Tier) (Unit, bool) {
	ks := ct
	if ks == nil {
		ks = bt
	}
	u := Unit{Kustomization: toRetire(ks.Kustomization), Removed: bt != nil && ct == nil}
	u.Kustomization.Kind = ks.Owner
	ok := true
	for _, side := range []struct {
		name string
		t    *gitops.Tier
		objs *[]*unstructured.Unstructured
	}{{"base", bt, &u.Base}, {"candidate", ct, &u.Candidate}} {
		if side.t == nil {
			continue
		}
		for _, u := range side.t.Undecoded {
			p.incomplete = append(p.incomplete, report.Gap{Op: report.OpDecode, Subject: tierGapID(side.t), Reason: report.GapDecodeError,
				What: "Kustomization " + id, Error: fmt.Sprintf("%s build declares a Kustomization that does not decode, so the tiers it leads to are not compared: %s", side.name, u)})
		}
		if side.t.Err != nil && side.name == "candidate" && bt != nil && errors.Is(side.t.Err, kbuild.ErrPathNotFound) {
			// The everyday undeploy: the app's ks.yaml and its directory go together. Whether
			// that is the expected shape (its parent deletes it) or a gap (it stays and cannot
			// build) is MarkRemoved's to decide, once every parent's candidate is known.
			u.PathGone = side.t.Err.Error()
			continue
		}
		if side.t.Err != nil {
			p.unbuilt = append(p.unbuilt, Unbuilt{Kustomization: id, Side: side.name, Path: side.t.Kustomization.Path,
				Error: side.t.Err.Error(), RemoteURLs: side.t.RemoteURLs})
			ok = false
			continue
		}
		if len(side.t.Defaulted) > 0 {
			p.notes = append(p.notes, report.Note{Code: report.NoteEnvsubstDefault, Subject: tierGapID(side.t),
				Message: fmt.Sprintf("Kustomization %s: %s build names objects with the default of %s, as Flux's envsubst does when no source defines it; a substituteFrom source that is not read (a Secret) could define it otherwise", id, side.name, strings.Join(side.t.Defaulted, ", "))})
		}
		if len(side.t.Unresolved) > 0 {
			p.incomplete = append(p.incomplete, report.Gap{Op: report.OpBuild, Subject: tierGapID(side.t), Reason: report.GapBuildFailed,
				What: "Kustomization " + id, Error: fmt.Sprintf("%s build leaves %s unresolved in object names", side.name, strings.Join(side.t.Unresolved, ", "))})
			ok = false
			continue
		}
		*side.objs = side.t.Objects
	}
	return u, ok
}

// changedElsewhere says how the candidate changes a tier built from another source, "" when
// it does not: the Kustomization removed or its spec changed, or the files under its path
// changed in this repository (an artifact generated from it). A path "." of another
// repository's source names that repository's top level, not this one's, and is not compared.
func changedElsewhere(baseFiles, candFiles gitrev.Files, bt, ct *gitops.Tier) string {
	switch {
	case bt == nil:
		return ""
	case ct == nil:
		return "the candidate removes it, and with it what it applied"
	case !reflect.DeepEqual(spec(bt.Kustomization), spec(ct.Kustomization)):
		return "the candidate changes its spec"
	}
	ks := ct.Kustomization
	if ks.Path == "." && ks.SourceKind != "ExternalArtifact" {
		return ""
	}
	if !gitrev.SameFiles(baseFiles, candFiles, ks.Path) {
		return "the candidate changes files under its path " + ks.Path + " in this repository"
	}
	return ""
}

// sourceSpecChanged says how the candidate changes the source object a tier built from another
// source reads, when this repository declares it, "" when it does not: added, removed, or its
// spec changed other than how often it is fetched (spec.interval, spec.timeout). A new URL,
// ref, ignore rule or layer makes the tier build other content, and prune what the old
// content had and the new lacks (edc-ops/flux2-multi-tenancy 64255c4 pointed a tenant's
// GitRepository at another repository and was SAFE).
func sourceSpecChanged(base, cand *gitops.Tree, ks kbuild.Kustomization) string {
	b, c := declaredSource(base, ks), declaredSource(cand, ks)
	switch {
	case b == nil && c == nil:
		return ""
	case b == nil:
		return "the candidate declares its source " + ks.Source() + ", which the base does not"
	case c == nil:
		return "the candidate no longer declares its source " + ks.Source()
	}
	if !reflect.DeepEqual(fetchedSpec(b), fetchedSpec(c)) {
		return "the candidate changes the spec of its source " + ks.Source() + " (what it builds comes from there)"
	}
	return ""
}

// declaredSource is the object of ks's sourceRef among what tree's builds declare, nil when
// none declares it.
func declaredSource(tree *gitops.Tree, ks kbuild.Kustomization) *unstructured.Unstructured {
	match := func(objs []*unstructured.Unstructured) *unstructured.Unstructured {
		for _, o := range objs {
			if o.GetKind() == ks.SourceKind && o.GetName() == ks.SourceName && o.GetNamespace() == ks.SourceNamespace {
				return o
			}
		}
		return nil
	}
	if tree.EntryBuild != nil {
		if o := match(tree.EntryBuild.Objects); o != nil {
			return o
		}
	}
	for _, id := range tree.IDs() {
		if o := match(tree.Tiers[id].Objects); o != nil {
			return o
		}
	}
	return nil
}

// fetchedSpec is a source's spec without the fields that say only how often it is fetched.
func fetchedSpec(o *unstructured.Unstructured) map[string]any {
	spec, _ := o.Object["spec"].(map[string]any)
	out := map[string]any{}
	for k, v := range spec {
		if k != "interval" && k != "timeout" {
			out[k] = v
		}
	}
	return out
}

func spec(ks kbuild.Kustomization) any {
	if ks.Object == nil {
		return nil
	}
	return ks.Object.Object["spec"]
}

// keepsAll says why a tier that cannot be judged at base needs no judging, "" when it does:
// its path is in neither revision or does not build at base, but it deletes nothing whatever
// its build holds. kustomize-controller prunes nothing with spec.prune false or while
// suspended, and deleting it deletes nothing when suspended, with deletionPolicy Orphan, or
// with the default MirrorPrune and prune false; Delete and WaitForTermination delete everything.
// Orphan counts only for a Kustomization the candidate deletes (offline: it has no candidate
// tier); live, whether its parent deletes it is not known yet, so prune must be false.
func keepsAll(bt, ct *gitops.Tier) string {
	if bt == nil || bt.Owner != "" || (bt.Err == nil && len(bt.Unresolved) == 0) {
		return ""
	}
	if ct != nil && ct.Err == nil && len(ct.Unresolved) == 0 {
		return ""
	}
	k := toRetire(bt.Kustomization)
	if ct != nil {
		k = toRetire(ct.Kustomization)
	}
	var why string
	switch {
	case k.Suspend:
		why = "spec.suspend is true"
	case k.DeletionPolicy == kustomizev1.DeletionPolicyDelete || k.DeletionPolicy == kustomizev1.DeletionPolicyWaitForTermination:
		return "" // deleting it deletes everything it applied, whatever prune says
	case !k.Prune:
		why = "spec.prune is false (deletionPolicy " + policy(k) + ")"
	case ct == nil && k.DeletionPolicy == kustomizev1.DeletionPolicyOrphan:
		why = "the candidate deletes it and its deletionPolicy is Orphan"
	default:
		return ""
	}
	what := "its path " + k.Path + " is not built at base"
	switch {
	case bt.Err != nil:
		what += " (" + bt.Err.Error() + ")"
	default:
		what = "its base build leaves " + strings.Join(bt.Unresolved, ", ") + " unresolved in object names"
	}
	return fmt.Sprintf("Kustomization %s: %s, but %s, so it deletes nothing: every object it applied is left in place", k.ID(), what, why)
}

// unchangedUnresolved says why a tier whose object names hold unresolved variables is no gap,
// "" when it is one: the candidate does not change it (offline: none of its inputs changed;
// else both builds hold the same objects), so it removes nothing.
func unchangedUnresolved(id string, bt, ct *gitops.Tier) string {
	if bt == nil || ct == nil || bt.Err != nil || ct.Err != nil || (len(bt.Unresolved) == 0 && len(ct.Unresolved) == 0) {
		return ""
	}
	if !ct.Unchanged && !sameObjects(bt.Objects, ct.Objects) {
		return ""
	}
	names := slices.Sorted(slices.Values(append(slices.Clone(bt.Unresolved), ct.Unresolved...)))
	return fmt.Sprintf("Kustomization %s: %s unresolved in object names, but the candidate does not change the tier, so it removes nothing", id, strings.Join(slices.Compact(names), ", "))
}

// unchangedResourceSet says why a ResourceSet's tier that could not be rendered on either side
// (inputs from a pull-request provider, say) is no gap, "" when it is one: the candidate changes
// neither the ResourceSet nor any ResourceSetInputProvider, so whatever inputs the operator
// reads, it renders the same objects at both revisions, and the change removes nothing.
func unchangedResourceSet(id string, bt, ct *gitops.Tier) string {
	if bt == nil || ct == nil || bt.Owner != gitops.OwnerResourceSet || (bt.Err == nil && ct.Err == nil) ||
		len(bt.RenderedFrom) == 0 || !sameObjects(bt.RenderedFrom, ct.RenderedFrom) {
		return ""
	}
	rset := strings.TrimPrefix(id, gitops.OwnerResourceSet+"/")
	return fmt.Sprintf("ResourceSet %s is not rendered here, but the candidate changes neither it nor any ResourceSetInputProvider, so it renders the same at both revisions and removes nothing", rset)
}

// sameObjects reports whether two builds hold the same objects, compared as built.
func sameObjects(a, b []*unstructured.Unstructured) bool {
	if len(a) != len(b) {
		return false
	}
	byID := make(map[string]*unstructured.Unstructured, len(a))
	for _, o := range a {
		byID[kbuild.ObjectID(o)] = o
	}
	for _, o := range b {
		if x, ok := byID[kbuild.ObjectID(o)]; !ok || !reflect.DeepEqual(x.Object, o.Object) {
			return false
		}
	}
	return true
}

// missing reports whether a tier exists only in name: its path is not in the snapshot.
func missing(t *gitops.Tier) bool {
	return t == nil || errors.Is(t.Err, kbuild.ErrPathNotFound)
}

// removalFiles names the file of every removed object that the base built, and the line of the
// object in it (locateLine, read in the base's snapshot): the base tiers with removals are built
// once more, recording files (the gate's own builds skip that, a fifth of their time), and each
// file is made relative to the repository's top level.
func removalFiles(ctx context.Context, base *gitops.Tree, layout sourceroot.Layout, rs []Removal) {
	files := map[string]map[string]string{} // Kustomization -> inventory id -> file under base.Root
	for i := range rs {
		ks := rs[i].Kustomization
		if rs[i].Base() == nil {
			continue
		}
		if _, done := files[ks]; !done {
			files[ks] = map[string]string{}
			if t := base.WithFiles(ctx, ks); t != nil && t.Err == nil {
				for j, o := range t.Objects {
					if f := t.FileAt(j); f != "" {
						files[ks][kbuild.ObjectID(o)] = f
					}
				}
			}
		}
		if f := files[ks][kbuild.ObjectID(rs[i].Base())]; f != "" {
			rs[i].File = layout.FromTop(f)
			rs[i].Line = locateLine(base.FS, filepath.Join(base.Root, filepath.FromSlash(f)), rs[i].Object)
		}
	}
}

// toRetire is the part of a Kustomization a retirement depends on.
func toRetire(ks kbuild.Kustomization) Kustomization {
	k := Kustomization{Namespace: ks.Namespace, Name: ks.Name, Path: ks.Path, Prune: ks.Prune, Wait: ks.Wait}
	if ks.Timeout > 0 {
		k.Timeout = ks.Timeout.String()
	}
	if ks.Object != nil {
		hc, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "healthChecks")
		k.HealthChecks = len(hc) > 0
		k.DeletionPolicy, _, _ = unstructured.NestedString(ks.Object.Object, "spec", "deletionPolicy")
		k.Suspend, _, _ = unstructured.NestedBool(ks.Object.Object, "spec", "suspend")
		k.Cluster = cluster.KubeConfigTarget(ks.Object)
	}
	return k
}
