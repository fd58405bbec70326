package finalizers

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// dependents explains foregroundDeletion and orphan, both removed by the garbage collector in
// kube-controller-manager: foreground waits until every dependent that sets
// blockOwnerDeletion is gone; orphan waits until every dependent's ownerReference is removed.
func (x *Explainer) dependents(ctx context.Context, o subject, name string) Finalizer {
	f := Finalizer{Name: name, RemovedBy: "kube-controller-manager (garbage collector)"}
	foreground := name == metav1.FinalizerDeleteDependents
	if foreground {
		f.WaitsFor = "every dependent with blockOwnerDeletion is deleted first"
	} else {
		f.WaitsFor = "the garbage collector removes this owner from every dependent's ownerReferences"
	}
	scan := x.scan(ctx, o.obj.GetNamespace())
	for _, fail := range scan.Failed {
		f.Incomplete = append(f.Incomplete, fail.Gap(o.obj.GetNamespace(), "listing "+fail.Resource+" (could hold dependents)"))
	}
	uid := o.obj.GetUID()
	for _, t := range scan.Types {
		for i := range t.Items {
			item := &t.Items[i]
			ref, ok := ownerRefTo(item, uid)
			if !ok || (foreground && (ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion)) {
				continue
			}
			b := Blocker{Object: refFor(t.Resource, item.Namespace, item.Name), Code: ReasonForegroundDependent, Reason: "is a dependent", GitOps: gitOpsOwner(item.Labels)}
			if foreground {
				b.Reason = "is a dependent with blockOwnerDeletion"
			}
			if item.DeletionTimestamp != nil && o.depth < maxDepth {
				b.Terminating = x.explain(ctx, t.Resource, item, o.depth+1)
			}
			f.Blockers = append(f.Blockers, b)
		}
	}
	sortBlockers(f.Blockers)
	for _, g := range x.catalog.Failed {
		if g.Unchecked {
			// The collector stops syncing while any group is undiscoverable; not knowing the
			// APIServices' state, whether it syncs is unknown: a gap, never an invented fix.
			f.Incomplete = append(f.Incomplete, apiServicesGap(g, "whether the garbage collector can sync is unknown"))
		}
	}
	f.Remedies = x.gcRemedies(o, f)
	if foreground {
		x.applyRecreatedDependents(ctx, o, &f)
	}
	x.collectorRefused(ctx, o, &f)
	return f
}

func ownerRefTo(obj metav1.Object, uid types.UID) (metav1.OwnerReference, bool) {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid {
			return r, true
		}
	}
	return metav1.OwnerReference{}, false
}

// gcRemedies: the garbage collector makes progress on its own unless a dependent is stuck or
// discovery is broken (the collector stops syncing while any group cannot be discovered).
func (x *Explainer) gcRemedies(o subject, f Finalizer) []Remediation {
	var out []Remediation
	stuck := 0
	for _, b := range f.Blockers {
		if b.Terminating != nil {
			stuck++
		}
	}
	if stuck > 0 {
		out = append(out, Remediation{Summary: fmt.Sprintf("%d dependent(s) are themselves Terminating: clear their blockers first (see below); the collector then finishes.", stuck)})
	}
	var gvs []string
	for _, g := range x.catalog.Failed {
		if !g.Unchecked {
			gvs = append(gvs, g.GroupVersion)
		}
	}
	if len(gvs) > 0 {
		out = append(out, Remediation{
			Summary: "Discovery fails for " + strings.Join(gvs, ", ") + ": the garbage collector cannot sync while any group is undiscoverable. Repair or remove the unavailable APIService.",
			Command: x.kubectl("", "get", "apiservices.apiregistration.k8s.io"),
		})
	}
	if len(out) == 0 && len(f.Blockers) == 0 {
		out = append(out, Remediation{Summary: "No blocking dependent is left: the garbage collector should remove the finalizer shortly. If it stays, check that kube-controller-manager is running."})
	} else if len(out) == 0 {
		out = append(out, Remediation{Summary: "The garbage collector is still deleting the dependents listed; it needs no help unless one of them stays."})
	}
	return out
}
