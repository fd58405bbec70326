package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// removerRuns reports a finalizer whose most likely remover runs and that nothing else is yet
// known to hold: no blocker, no pause marker, not orphaned.
func removerRuns(f Finalizer) bool {
	return len(f.Blockers) == 0 && len(f.Paused) == 0 && !f.Orphaned && len(f.Controllers) > 0 && f.Controllers[0].Found && f.Controllers[0].Healthy
}

// applyReferrers answers "who refers to me" for every finalizer whose remover runs: a
// controller that runs and waits usually waits until nothing refers to the object any more
// (a class its objects name, a snapshot a claim is cloned from). The objects that still refer
// to it, and the objects its own conditions and recent events name, become that finalizer's
// blockers, fully qualified, each with the fix to remove or repoint it; stripping the finalizer
// is never offered for them. Types that could not be read make that part UNKNOWN while no
// referrer is proven.
func (x *Explainer) applyReferrers(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	// One search for the object, its answer given to every finalizer whose remover runs: each
	// may be the one that waits on referrers.
	refs, read, gaps := x.findReferrers(ctx, o)
	refs = dropControlledChildren(refs, o.obj.GetUID())
	named, unchecked := x.namedInOwnWord(ctx, o, w)
	linked, more := x.statusLinks(ctx, o, w)
	named, unchecked = append(named, linked...), append(unchecked, more...)
	// A name the controller's words give that resolves to no one object could be what it waits
	// for: like a type that could not be read, it makes the finalizer UNKNOWN while no blocker
	// is proven.
	spoken, unresolved := x.spokenObjects(ctx, o, w)
	named, gaps = append(named, spoken...), append(gaps, unresolved...)
	blockers, more := x.referrerBlockers(ctx, o, refs, named)
	gaps = append(gaps, more...)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		f.Unchecked = append(f.Unchecked, unchecked...)
		if len(blockers) == 0 {
			f.Incomplete = append(f.Incomplete, gaps...)
			if len(gaps) == 0 {
				// Every candidate type was read in full: "no referrer" is evidence now.
				f.refs = &read
			}
			continue
		}
		// A referrer is proven: what an unread type would add cannot clear the finalizer.
		f.Unchecked = append(f.Unchecked, gaps...)
		f.Blockers = append(f.Blockers, blockers...)
		var fixes []Remediation
		for _, b := range blockers {
			fixes = append(fixes, x.referrerFix(o, *f, b))
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.LastResort || r.Code == ReasonStripFinalizer })
		f.Remedies = append(fixes, rest...)
	}
}

// referrerBlockers turns referrers and named objects into blockers, one per object, its
// reasons joined; the ones being deleted are explained in turn.
func (x *Explainer) referrerBlockers(ctx context.Context, o subject, refs []referrer, named []namedObject) ([]Blocker, []report.Gap) {
	var out []Blocker
	var gaps []report.Gap
	index := map[string]int{}
	for _, r := range refs {
		b := Blocker{Object: refFor(r.res, r.obj.GetNamespace(), r.obj.GetName()), Code: ReasonReferrer,
			Reason: "refers to it by " + strings.Join(r.paths, ", "), GitOps: gitOpsOwner(r.obj.GetLabels()), labels: r.obj.GetLabels()}
		if r.obj.GetDeletionTimestamp() != nil && o.depth < maxDepth {
			b.Terminating = x.explain(ctx, r.res, r.obj, o.depth+1)
		} else {
			b.Details = []string{"exists and is not being deleted"}
		}
		index[b.Object.String()] = len(out)
		out = append(out, b)
	}
	for _, n := range named {
		ref := refFor(n.res, n.namespace, n.name)
		why := "named by the object's own " + n.source + " as what its deletion waits for"
		if j, ok := index[ref.String()]; ok {
			out[j].Reason += "; " + why
			continue
		}
		b := Blocker{Object: ref, Code: ReasonNamedByObject, Reason: why}
		cur, err := x.c.Metadata.Resource(n.res.GVR()).Namespace(n.namespace).Get(ctx, n.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String(), err))
			continue
		}
		b.GitOps, b.labels = gitOpsOwner(cur.GetLabels()), cur.GetLabels()
		if cur.GetDeletionTimestamp() != nil && o.depth < maxDepth {
			b.Terminating = x.explain(ctx, n.res, cur, o.depth+1)
		} else {
			b.Details = []string{"exists and is not being deleted"}
		}
		index[ref.String()] = len(out)
		out = append(out, b)
	}
	sortBlockers(out)
	return out, gaps
}

// referrerFix is the way out of one referrer: delete it, or repoint its reference; a referrer
// that is itself Terminating is cleared through its own explanation.
func (x *Explainer) referrerFix(o subject, f Finalizer, b Blocker) Remediation {
	self := o.ref().String()
	never := fmt.Sprintf(" Never strip %s: its controller holds it on purpose while something refers to %s, and stripping leaves that reference pointing at an object that is gone.", f.Name, self)
	if b.Terminating != nil {
		return Remediation{Code: ReasonRemoveReferrer, Summary: fmt.Sprintf("%s, which refers to %s, is itself Terminating: clear what holds it (its explanation is below); %s then goes once it is gone.", b.Object.String(), self, f.Name) + never}
	}
	how := "detach it from " + self
	if b.Code == ReasonReferrer {
		how = "repoint " + strings.TrimPrefix(b.Reason, "refers to it by ")
		if k := strings.Index(how, ";"); k >= 0 {
			how = how[:k]
		}
		how += " to another object where the field may change"
	}
	r := b.Object
	var req *apiRequest
	if res, ok := x.resource(r.Group, r.Kind); ok {
		req = deleteRequest(res, r.Namespace, b.labels)
	}
	return Remediation{
		Code:    ReasonRemoveReferrer,
		Summary: fmt.Sprintf("Delete %s if it may go, or, if it must stay, %s: the controller removes %s once nothing refers to %s.", r.String(), how, f.Name, self) + never,
		Command: x.kubectl(r.Namespace, "delete", r.QualifiedResource(), r.Name),
		Cost:    fmt.Sprintf("deleting %s loses it and whatever its own controller removes with it; repointing keeps it", r.String()),
		request: req,
	}
}
