package finalizers

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// applyAwaitedNames makes blockers of what the stuck object's controller says it waits for, by
// a name the object records: a name in one of its spec's lists of names (awaitedNames) that its
// own waiting condition or recent event repeats. The name is resolved among the kinds of the
// object's product whose name ends in the list's stem (familyKinds), in every namespace. An
// object found that does not report itself ready is the blocker (`named-by-object`): bring it
// back, or, when what it stands for is gone for good, delete it (or drop the name from the
// list); the controller then stops waiting. A name found nowhere, when one kind alone could
// hold it, is a missing object. Only for a finalizer whose remover runs and that nothing else
// is yet known to hold.
func (x *Explainer) applyAwaitedNames(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if w.obj == nil || !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	spec, _ := w.obj.Object["spec"].(map[string]any)
	awaited := awaitedNames(w, recordedNames(spec))
	if len(awaited) == 0 {
		return
	}
	blockers, fixes, gaps := x.awaitedBlockers(ctx, o, awaited)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		if len(blockers) == 0 {
			f.Unchecked = append(f.Unchecked, gaps...)
			continue
		}
		f.Unchecked = append(f.Unchecked, gaps...)
		f.Blockers = append(f.Blockers, blockers...)
		steps := make([]Remediation, 0, len(fixes))
		for _, fix := range fixes {
			steps = append(steps, fix(f.Controllers[0].Object.String(), f.Name))
		}
		f.Remedies = append(steps, f.Remedies...)
	}
}

// awaitedFix is the way out of one awaited blocker, worded for a finalizer and its remover.
type awaitedFix func(remover, finalizer string) Remediation

// awaitedBlockers resolves each awaited name (bounded) and returns the blockers with their
// fixes.
func (x *Explainer) awaitedBlockers(ctx context.Context, o subject, awaited []awaitedName) ([]Blocker, []awaitedFix, []report.Gap) {
	var blockers []Blocker
	var fixes []awaitedFix
	var gaps []report.Gap
	lookups := 0
	for _, a := range awaited {
		fam := x.familyKinds(o.res.Group, a.stem)
		found := false
		for _, res := range fam {
			if lookups++; lookups > maxAwaitedLookups {
				gaps = append(gaps, boundGap(report.OpList, typeID(res, "").Named(a.name), fmt.Sprintf("more names the object awaits than are looked up (bound of %d): %s %s and on were not resolved", maxAwaitedLookups, res.Kind, a.name)))
				return blockers, fixes, gaps
			}
			nss, err := x.findNamed(ctx, res, "", a.name)
			if err != nil {
				gaps = append(gaps, listGap(typeID(res, "").Named(a.name), "resolving "+a.name+", which the object's "+a.path+" records and its "+a.source+" names", err))
				continue
			}
			slices.Sort(nss)
			for _, ns := range slices.Compact(nss) {
				found = true
				ref := refFor(res, ns, a.name)
				obj, err := x.c.Dynamic.Resource(res.GVR()).Namespace(ns).Get(ctx, a.name, metav1.GetOptions{})
				if err != nil {
					gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String()+" for its conditions", err))
					continue
				}
				why := notReady(obj)
				if why == "" && obj.GetDeletionTimestamp() == nil {
					continue
				}
				b := Blocker{Object: ref, Code: ReasonNamedByObject, GitOps: gitOpsOwner(obj.GetLabels()), labels: obj.GetLabels(),
					Reason: fmt.Sprintf("the object's %s records %q and its own %s names it as what it waits for (%q)", a.path, a.name, a.source, a.quote)}
				if obj.GetDeletionTimestamp() != nil && o.depth < maxDepth {
					b.Terminating = x.explain(ctx, res, obj, o.depth+1)
					blockers = append(blockers, b)
					continue
				}
				b.Details = []string{why}
				blockers = append(blockers, b)
				cmd, cost, req := x.kubectl(ns, "delete", ref.QualifiedResource(), a.name), fmt.Sprintf("deleting %s removes it for everything that uses it, not only for %s", ref.String(), o.ref().String()), deleteRequest(res, ns, obj.GetLabels())
				a := a
				fixes = append(fixes, func(remover, finalizer string) Remediation {
					return Remediation{Code: ReasonReadyOrRemoveAwaited, Command: cmd, Cost: cost, request: req,
						Summary: fmt.Sprintf("Bring %s back to ready: %s waits for it and removes %s itself once it is. If what it stands for is gone for good, delete it (or drop %q from %s where the field may change): the controller then stops waiting for it. Removing the finalizer by hand instead skips the cleanup the controller still does through the names that answer.",
							ref.String(), remover, finalizer, a.name, a.path)}
				})
			}
		}
		if !found && len(fam) == 1 && len(gaps) == 0 {
			ref := refFor(fam[0], "", a.name)
			blockers = append(blockers, Blocker{Object: ref, Code: ReasonMissingObject, Details: []string{"read just now: not found in any namespace"},
				Reason: fmt.Sprintf("the object's %s records %q and its own %s names it as what it waits for (%q); no %s of that name exists", a.path, a.name, a.source, a.quote, fam[0].Kind)})
			kind, a := fam[0].Kind, a
			fixes = append(fixes, func(remover, finalizer string) Remediation {
				return Remediation{Code: ReasonRestoreMissingObject,
					Summary: fmt.Sprintf("Create %s %s again if what it stands for still exists, or drop %q from %s where the field may change: %s waits for it and removes %s itself once it can.", kind, a.name, a.name, a.path, remover, finalizer)}
			})
		}
	}
	sortBlockers(blockers)
	return blockers, fixes, gaps
}
