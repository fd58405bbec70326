package finalizers

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/report"
)

// maxLiveDependents bounds the dependents named in one step.
const maxLiveDependents = 4

// deletingWord is a status value by which a controller says it is deleting the object.
var deletingWord = regexp.MustCompile(`(?i)^(deleting|terminating|removing|stopping|destroying)$`)

// deletingStatus returns the top-level status field (status.status, status.phase, status.state)
// in which the object's controller says it is deleting it, and its value; "" when none does.
func deletingStatus(obj *unstructured.Unstructured) (field, value string) {
	if obj == nil {
		return "", ""
	}
	for _, k := range []string{"status", "phase", "state"} {
		v, ok, err := unstructured.NestedString(obj.Object, "status", k)
		if ok && err == nil && deletingWord.MatchString(strings.TrimSpace(v)) {
			return "status." + k, v
		}
	}
	return "", ""
}

// liveBlockingDependents lists, sorted, the objects in scan that name uid in an ownerReference
// with blockOwnerDeletion and are not being deleted themselves.
func liveBlockingDependents(scan *Scan, uid types.UID) []ObjectRef {
	var out []ObjectRef
	for _, t := range scan.Types {
		for i := range t.Items {
			item := &t.Items[i]
			ref, ok := ownerRefTo(item, uid)
			if !ok || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion || item.DeletionTimestamp != nil {
				continue
			}
			out = append(out, refFor(t.Resource, item.Namespace, item.Name))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// deletedInBackground reports an object whose deletion asked the garbage collector for nothing
// first: neither foregroundDeletion nor orphan is among its finalizers.
func deletedInBackground(finalizers []string) bool {
	return !slices.Contains(finalizers, metav1.FinalizerDeleteDependents) && !slices.Contains(finalizers, metav1.FinalizerOrphanDependents)
}

// backgroundDependents explains a running remover that waits for the object's own dependents
// under a background deletion. The object was deleted without foreground propagation (no
// foregroundDeletion nor orphan finalizer), its own status says its controller is deleting it
// (status.status, .phase or .state Deleting, Terminating, Removing, Stopping), and objects it
// owns with blockOwnerDeletion still exist and are not being deleted. Under background
// propagation the garbage collector deletes those dependents only after the object is gone, so
// a controller that waits for its own children to stop before it removes its finalizer waits
// forever. The way out comes first: delete the object again with foreground propagation (the
// API server adds foregroundDeletion, the collector deletes the dependents first, and the
// controller then finishes), whose cost is that the dependents go now rather than after it. A
// failed list is a gap; nothing is offered on a partial read.
func (x *Explainer) backgroundDependents(ctx context.Context, o subject, w ownWord) (evidence, reasons []string, fixes []Remediation, gaps []report.Gap) {
	ns := o.obj.GetNamespace()
	field, value := deletingStatus(w.obj)
	if ns == "" || field == "" || !deletedInBackground(o.obj.GetFinalizers()) {
		return nil, nil, nil, nil
	}
	scan := x.scan(ctx, ns)
	for _, fail := range scan.Failed {
		gaps = append(gaps, fail.Gap(ns, "listing "+fail.Resource+" (could hold dependents of "+o.ref().String()+")"))
	}
	if len(gaps) > 0 {
		return nil, nil, nil, gaps
	}
	deps := liveBlockingDependents(scan, o.obj.GetUID())
	if len(deps) == 0 {
		return nil, nil, nil, nil
	}
	named := make([]string, 0, maxLiveDependents+1)
	for i, d := range deps {
		if i == maxLiveDependents {
			named = append(named, fmt.Sprintf("and %d more", len(deps)-maxLiveDependents))
			break
		}
		named = append(named, d.String())
	}
	list := strings.Join(named, ", ")
	evidence = []string{
		fmt.Sprintf("its own %s is %q: its controller saw the deletion and is deleting it", field, value),
		"it was deleted in the background (no foregroundDeletion nor orphan finalizer), and objects it owns with blockOwnerDeletion still run, not being deleted: " + list,
	}
	reasons = []string{"its controller waits for the object's own dependents to stop, which a background deletion removes only after the object is gone: each waits for the other"}
	r := o.ref()
	fixes = []Remediation{{
		Code: ReasonDeleteInForeground,
		Summary: fmt.Sprintf("Delete %s again with foreground propagation: the API server adds foregroundDeletion, the garbage collector deletes its dependents first (%s), and its controller, which waits for them to stop, then removes its finalizer itself.",
			r.String(), list),
		Command: x.kubectl(r.Namespace, "delete", r.QualifiedResource(), r.Name, "--cascade=foreground", "--wait=false"),
		Cost:    "its dependents are deleted now instead of after it: " + list,
	}}
	return evidence, reasons, fixes, nil
}

// applyBackgroundDependents gives backgroundDependents' way out to every finalizer whose most
// likely remover runs and that nothing else explains (no blocker, failed read or orphan
// verdict): first the foreground deletion, then the steps it had. A stalled finalizer's
// evidence gains the rule's, and loses the stall's claim that the controller has not seen the
// deletion, which the object's own status contradicts.
func (x *Explainer) applyBackgroundDependents(ctx context.Context, o subject, e *Explanation, w ownWord) {
	applies := func(f Finalizer) bool {
		return removerRuns(f) && len(f.Blockers) == 0 && len(f.Incomplete) == 0 && !f.Orphaned && len(f.Paused) == 0 &&
			f.Name != metav1.FinalizerDeleteDependents && f.Name != metav1.FinalizerOrphanDependents
	}
	if !slices.ContainsFunc(e.Finalizers, applies) {
		return
	}
	evidence, reasons, fixes, gaps := x.backgroundDependents(ctx, o, w)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !applies(*f) {
			continue
		}
		f.Unchecked = append(f.Unchecked, gaps...)
		if len(fixes) == 0 {
			continue
		}
		f.WaitsFor = reasons[0] + " (" + strings.Join(evidence, "; ") + ")"
		if s := f.Stalled; s != nil {
			s.Evidence = slices.DeleteFunc(s.Evidence, func(e string) bool { return strings.HasPrefix(e, "its status.observedGeneration is ") })
			s.Evidence = append(s.Evidence, evidence...)
			s.LikelyReasons = append(append([]string(nil), reasons...), s.LikelyReasons...)
		}
		f.Remedies = append(slices.Clone(fixes), f.Remedies...)
	}
}
