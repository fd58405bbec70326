package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// goingReferent is an object the stuck object's spec or ownerReferences name that is itself
// being deleted.
type goingReferent struct {
	ref    ObjectRef
	reason string
	// waits: the referent's deletion waits for the stuck object (foreground deletion, with
	// the stuck object a dependent that blocks it).
	waits bool
	// ownerOnly: only metadata.ownerReferences names it, no spec field: its deletion is what
	// cascaded to the stuck object (yieldsToMissingInput).
	ownerOnly bool
	// parent: the referent is what the object belongs to (its owner, or the object it is
	// part of by inference), whose teardown takes what the object stands on with it.
	parent bool
	// specNamed: a field of the stuck object's spec names it (not only its ownerReferences or
	// an inference): the cleanup runs against it.
	specNamed bool
}

// applyGoingReferents makes blockers of the objects the stuck object refers to (its spec's
// references, its owners) that are themselves being deleted, for every finalizer whose remover
// runs and that nothing else holds yet: the cleanup such a finalizer waits for runs against
// what that object provides (a database server, a broker, a volume), which goes with it, so
// the controller retries for ever. When the referent's deletion in turn waits for the stuck
// object (foreground deletion, the stuck object a blocking dependent), neither finishes: a
// cycle only removing this finalizer breaks. The strip leads the steps, the remover's logs come
// last, and the referent's own finalizers are never the ones to remove. Only for objects of an
// API group other than the core one, and only once the deletion is older than the stall grace
// period. When the object's own status records why its controller fails and names none of them
// (failureBesideReferents), that failure is the cause and the stall's rules say so.
func (x *Explainer) applyGoingReferents(ctx context.Context, o subject, e *Explanation, w ownWord, requested time.Time) {
	// Core objects' owners come and go in the course of normal work (a Job's pods); and within
	// the stall grace period a referent's deletion may still be on course, taking this object
	// with it.
	if o.res.Group == "" || x.now.Sub(requested) < stallAfter || !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	going := withoutCascade(x.goingReferents(ctx, o, w))
	if len(going) == 0 || x.yieldsToMissingInput(ctx, o, w, going) || failureBesideReferents(w, going) {
		return
	}
	var names []string
	cycle := false
	for _, g := range going {
		names = append(names, g.ref.String())
		cycle = cycle || g.waits
	}
	gone, goneGaps := x.goneWithParent(ctx, o, w, going)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		for _, g := range going {
			f.Blockers = append(f.Blockers, Blocker{Object: g.ref, Code: ReasonReferentTerminating, Reason: g.reason,
				Details: []string{"read just now: being deleted"}})
		}
		f.Blockers = append(f.Blockers, gone.blockers...)
		f.Unchecked = append(f.Unchecked, goneGaps...)
		rest, logs := splitRemedies(f.Remedies)
		f.Remedies = rest
		if f.bypass != nil {
			strip := *f.bypass
			why := fmt.Sprintf("%s is being deleted, and what the cleanup behind %s runs against goes with it%s: the controller retries for ever.", quote(names), f.Name, gone.said())
			if cycle {
				why += " Its deletion waits for this object in turn, so neither finishes until this finalizer goes."
			}
			strip.Summary = why + " If that deletion is meant, remove finalizer " + f.Name + " by hand (never the finalizers of what is being deleted). The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read."
			f.Remedies = append(f.Remedies, strip)
		}
		f.Remedies = append(f.Remedies, logs...)
	}
	// The strip's cost names what the object records outside the cluster.
	nameLeftovers(e, w.obj)
}

// splitRemedies sorts a finalizer's steps once what holds it is known: the remover's logs (to
// come last) apart from the rest, the strips dropped (the caller words its own).
func splitRemedies(rs []Remediation) (rest, logs []Remediation) {
	for _, r := range rs {
		switch {
		case r.LastResort || r.Code == ReasonStripFinalizer:
		case r.Code == ReasonReadControllerLogs:
			logs = append(logs, r)
		default:
			rest = append(rest, r)
		}
	}
	return rest, logs
}

// goingReferents reads (cached, bounded as danglingRefs) the objects the stuck object's spec
// references and owners name, and returns those being deleted. A read that fails is left to
// danglingRefs, which reports it as a gap; an object that does not exist is danglingRefs' too.
// The object's own success is no reason to skip them here: a cleanup needs what it refers to
// now, whatever it had when it ran.
func (x *Explainer) goingReferents(ctx context.Context, o subject, w ownWord) []goingReferent {
	type target struct {
		ref    ObjectRef
		gvr    schema.GroupVersionResource
		name   string
		path   string
		owner  bool
		parent bool
		spec   bool
	}
	var targets []target
	for _, r := range o.obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil {
			continue
		}
		if res, ok := x.resource(gv.Group, r.Kind); ok {
			targets = append(targets, target{ref: refFor(res, o.obj.GetNamespace(), r.Name), gvr: res.GVR(), name: r.Name, path: "metadata.ownerReferences", owner: true, parent: true})
		}
	}
	if spec, _ := x.refSpec(ctx, o, w); spec != nil {
		// A field may name the group's one kind ending in its base (clusterRef): only an object
		// that exists and is being deleted is acted on here, so a loose match claims nothing
		// missing.
		for _, r := range walkReferences(spec, x.referableKinds(o.res.Group), o.obj.GetNamespace(), kindFor) {
			if r.node || (r.res.GroupKind() == o.res.GroupKind() && r.name == o.obj.GetName()) {
				continue
			}
			targets = append(targets, target{ref: r.ref(), gvr: r.res.GVR(), name: r.name, path: r.path, spec: true})
		}
		if w.obj != nil {
			if r, ok := x.partOfReference(ctx, o, w.obj, nil); ok {
				targets = append(targets, target{ref: r.ref(), gvr: r.res.GVR(), name: r.name, path: r.path + " (by inference, " + r.inferred + ")", parent: true})
			}
		}
	}
	var out []goingReferent
	seen := map[string]int{}
	for i, t := range targets {
		if i >= maxDanglingLookups {
			break
		}
		obj, err := cached(x, "exists/"+t.ref.String(), func() (*metav1.PartialObjectMetadata, error) {
			return x.c.Metadata.Resource(t.gvr).Namespace(t.ref.Namespace).Get(ctx, t.name, metav1.GetOptions{})
		})
		if err != nil || obj.GetDeletionTimestamp() == nil {
			continue
		}
		if j, ok := seen[t.ref.String()]; ok {
			out[j].reason = strings.Replace(out[j].reason, " names ", " and "+t.path+" name ", 1)
			out[j].waits = out[j].waits || (t.owner && waitsForDependent(obj, o.obj))
			out[j].ownerOnly = out[j].ownerOnly && t.owner
			out[j].parent = out[j].parent || t.parent
			out[j].specNamed = out[j].specNamed || t.spec
			continue
		}
		since := obj.GetDeletionTimestamp().UTC().Format("2006-01-02T15:04:05Z")
		g := goingReferent{ref: t.ref, waits: t.owner && waitsForDependent(obj, o.obj), ownerOnly: t.owner, parent: t.parent, specNamed: t.spec,
			reason: fmt.Sprintf("%s names %s, which is itself being deleted (since %s): what the cleanup runs against goes with it", t.path, t.ref.String(), since)}
		if gone := x.missingServices(ctx, t.ref, t.gvr); len(gone) > 0 {
			g.reason += "; and what it works through is gone already: " + strings.Join(gone, "; ")
		}
		seen[t.ref.String()] = len(out)
		out = append(out, g)
	}
	for i := range out {
		if out[i].waits {
			out[i].reason += "; and its foreground deletion waits for this object, a dependent that blocks it"
		}
	}
	return out
}

// waitsForDependent reports an owner under foreground deletion for which dependent is a
// blocking dependent: the owner goes only after the dependent.
func waitsForDependent(owner *metav1.PartialObjectMetadata, dependent metav1.Object) bool {
	if !slices.Contains(owner.GetFinalizers(), metav1.FinalizerDeleteDependents) {
		return false
	}
	return slices.ContainsFunc(dependent.GetOwnerReferences(), func(r metav1.OwnerReference) bool {
		return r.UID == owner.GetUID() && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion
	})
}
