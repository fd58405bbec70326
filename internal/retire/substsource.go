package retire

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/report"
)

// substitutionGone finds the postBuild.substituteFrom sources the change deletes from the
// cluster (goneSources) and builds the candidate's tiers that read them again without them, as
// kustomize-controller meets them after the prune: a reference that is not optional fails the
// tier (the controller applies and prunes nothing of it, and the build error names the source
// and why it is gone; a note says what that does), an optional one defines nothing, and a note
// says the candidate is judged with its variables unset. Live (live non-nil), a source counts
// as gone only when the cluster holds it now and the live object carries no opt-out: the live
// gate otherwise substitutes from the live ConfigMap at both revisions, as if it stayed.
func substitutionGone(ctx context.Context, base, cand *gitops.Tree, live Cluster) []report.Note {
	gone := goneSources(ctx, base, cand, live)
	var notes []report.Note
	for _, id := range cand.BuildWithout(ctx, gone) {
		t := cand.Tiers[id]

		for _, s := range t.Kustomization.SubstituteFrom() {
			why, ok := gone[s.ID]
			if !ok {
				continue
			}
			if !s.Optional {
				notes = append(notes, report.Note{Code: report.NoteSubstitutionSourceGone, Subject: tierGapID(t),
					Message: fmt.Sprintf("Kustomization %s: postBuild.substituteFrom reads %s, not optional, which the change deletes (%s): kustomize-controller fails its build, so it stops applying: it prunes nothing, and every later change to it waits until the source is back", id, sourceName(s.ID), why)})
				continue
			}
			notes = append(notes, report.Note{Code: report.NoteSubstitutionSourceGone, Subject: tierGapID(t),
				Message: fmt.Sprintf("Kustomization %s: postBuild.substituteFrom reads %s, optional, which the change deletes (%s): kustomize-controller substitutes without it, so the variables it defined are unset, and the candidate is judged so", id, sourceName(s.ID), why)})
		}
	}
	return notes
}

// goneSources are the ConfigMaps and Secrets, by "Kind/namespace/name", that a candidate
// Kustomization's postBuild.substituteFrom reads and the change deletes from the cluster, each
// with why: a base tier applied it, that tier prunes it (spec.prune, the object not opted
// out, the tier not suspended, on this cluster), and the candidate's builds declare it
// nowhere while that tier still builds there. Anything less certain (applied by a bootstrap's
// Kustomization that is not in the repository, by a tier the candidate does not build or
// deletes, or to another cluster) is not taken as gone: the source may still be there. Live,
// the source is read from the cluster (its existence and opt-outs, never a Secret's data): one
// that is not there is not deleted by the change, and one whose live object opts out stays.
func goneSources(ctx context.Context, base, cand *gitops.Tree, live Cluster) map[string]string {
	read := map[string]bool{}
	for _, t := range cand.Tiers {
		for _, s := range t.Kustomization.SubstituteFrom() {
			read[s.ID] = true
		}
	}
	if len(read) == 0 {
		return nil
	}
	declared := declaredSources(cand, read)
	gone := map[string]string{}
	for _, id := range base.IDs() {
		bt, ct := base.Tiers[id], cand.Tiers[id]
		if bt.Err != nil || bt.NotBuilt() || ct == nil || ct.Err != nil || ct.NotBuilt() || ct.NotCovered != "" {
			continue
		}
		ks := toRetire(ct.Kustomization)
		ks.Kind = ct.Owner
		if ks.Suspend || ks.Cluster != "" {
			continue // applies nothing of the candidate, or prunes on another cluster
		}
		for _, o := range bt.Objects {
			src := sourceID(o)
			if !read[src] || declared[src] || gone[src] != "" {
				continue
			}
			r := &Removal{Object: RefOf(o), base: o}
			onCluster := ""
			if live != nil {
				if r.Live = live.Facts(ctx, r); !r.Live.Exists {
					continue // not on the cluster (or not readable): the change deletes nothing
				}
				onCluster = "; the cluster holds it now, and the live object does not opt out"
			}
			if optOut(Unit{Kustomization: ks}, r) != "" {
				continue // kept on the cluster as it was
			}
			gone[src] = fmt.Sprintf("the candidate no longer declares it, and %s, which applied it, prunes it%s", Applier(ct.ID()), onCluster)
		}
	}
	return gone
}

// declaredSources are the sources of read that the candidate's entry build or any tier it
// built declares.
func declaredSources(cand *gitops.Tree, read map[string]bool) map[string]bool {
	out := map[string]bool{}
	tiers := []*gitops.Tier{cand.EntryBuild}
	for _, id := range cand.IDs() {
		tiers = append(tiers, cand.Tiers[id])
	}
	for _, t := range tiers {
		if t == nil {
			continue
		}
		for _, o := range t.Objects {
			if src := sourceID(o); read[src] {
				out[src] = true
			}
		}
	}
	return out
}

// sourceID is o's id as a substituteFrom source ("Kind/namespace/name"), "" when o is not a
// ConfigMap or Secret.
func sourceID(o *unstructured.Unstructured) string {
	gvk := o.GroupVersionKind()
	if gvk.Group != "" || (gvk.Kind != "ConfigMap" && gvk.Kind != "Secret") {
		return ""
	}
	return gvk.Kind + "/" + o.GetNamespace() + "/" + o.GetName()
}

// sourceName writes a source id ("ConfigMap/ns/name") as the report names objects
// ("ConfigMap ns/name").
func sourceName(id string) string {
	kind, rest, _ := strings.Cut(id, "/")
	return kind + " " + rest
}
