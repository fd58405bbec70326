package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// reconcilerKeyWords are words of a field's key that say the field holds the name of the
// component that reconciles the object (`status.reconciler`, `spec.controllerName`).
var reconcilerKeyWords = []string{"reconciler", "controller", "operator", "manager"}

// maxFieldDepth bounds how deep the object's spec and status are walked for names.
const maxFieldDepth = 6

// fieldTie is a workload the object's own spec or status names in a field whose key says it is
// the object's reconciler.
type fieldTie struct {
	w    workload
	line string
}

// objectNamedWorkloads returns the workloads the object's own spec or status names, by their
// name or their service account's, in a field whose key has a word of reconcilerKeyWords, sorted
// by workload. A workload the object owns (its ownerReferences name the object) is its child,
// not its remover, and is left out; so are names of fewer than four characters.
func objectNamedWorkloads(obj *unstructured.Unstructured, ws []workload) []fieldTie {
	if obj == nil {
		return nil
	}
	found := map[string]fieldTie{}
	visit := func(path, val string) {
		if len(val) < 4 || !keyNamesReconciler(path) {
			return
		}
		for _, w := range ws {
			if workloadOwnedBy(w, obj.GetUID()) {
				continue
			}
			what := ""
			switch {
			case w.ref.Name == val:
				what = "it"
			case w.serviceAccount == val && val != "default":
				what = "its service account " + saRef(w.ref.Namespace, w.serviceAccount)
			default:
				continue
			}
			if _, seen := found[w.ref.String()]; !seen {
				found[w.ref.String()] = fieldTie{w: w, line: fmt.Sprintf("the object's own %s names %s (%s): the object says which component reconciles it", path, what, val)}
			}
		}
	}
	for _, top := range []string{"spec", "status"} {
		walkStrings(obj.Object[top], top, 0, visit)
	}
	out := make([]fieldTie, 0, len(found))
	for _, t := range found {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].w.ref.String() < out[j].w.ref.String() })
	return out
}

// walkStrings calls visit with the dotted path of every string under v (lists as `[]`).
func walkStrings(v any, path string, depth int, visit func(path, val string)) {
	if depth > maxFieldDepth {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			walkStrings(sub, path+"."+k, depth+1, visit)
		}
	case []any:
		for _, sub := range t {
			walkStrings(sub, path+"[]", depth+1, visit)
		}
	case string:
		visit(path, t)
	}
}

// keyNamesReconciler reports a field path below spec or status one of whose keys has a word of
// reconcilerKeyWords.
func keyNamesReconciler(path string) bool {
	_, rest, _ := strings.Cut(path, ".")
	rest = strings.ToLower(rest)
	return slices.ContainsFunc(reconcilerKeyWords, func(w string) bool { return strings.Contains(rest, w) })
}

func workloadOwnedBy(w workload, uid types.UID) bool {
	return uid != "" && slices.ContainsFunc(w.owners, func(o metav1.OwnerReference) bool { return o.UID == uid })
}

// mayUpdate reports whether w's service account may update the object (any grant RBAC finds).
func mayUpdate(rb *rbacObjects, o subject, w workload) bool {
	return slices.ContainsFunc(rb.updaters(o.res.Group, o.res.Resource, o.obj.GetNamespace(), o.obj.GetName()), func(g grant) bool { return g.runsAs(w) })
}

// eventTies maps the candidates that answer to the source of an event on the object (answersTo)
// to the line that says so: a controller reports events on the objects it reconciles.
func eventTies(events []Event, cs []Controller, byRef map[string]workload) map[string]string {
	out := map[string]string{}
	for _, ev := range events {
		for _, c := range cs {
			w, ok := byRef[c.Object.String()]
			if !ok || !c.Found || ev.Source == "" {
				continue
			}
			if how, ok := answersTo(ev.Source, w); ok {
				if _, seen := out[c.Object.String()]; !seen {
					out[c.Object.String()] = fmt.Sprintf("it reports events on the object: %s %s comes from %s, which it answers to (%s)", ev.Type, ev.Reason, ev.Source, how)
				}
			}
		}
	}
	return out
}

// applyObjectTies ranks each finalizer's remover candidates first by what ties a workload to
// the stuck object itself, before its rights and its product: the object's own spec or status
// naming the workload as its reconciler (objectNamedWorkloads), then events on the object that
// the workload reports (eventTies). Such a candidate comes first, with high confidence and that
// line as evidence, whatever rights the others have. A workload the object names that is no
// candidate, because its service account may no longer update the object, is the remover that
// lost its rights (rightsLost).
func (x *Explainer) applyObjectTies(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if w.obj == nil {
		return
	}
	ws, err := x.workloads(ctx)
	if err != nil {
		return
	}
	byRef := map[string]workload{}
	for _, wl := range ws {
		byRef[wl.ref.String()] = wl
	}
	named := objectNamedWorkloads(w.obj, ws)
	rb, err := x.rbac(ctx)
	if err != nil {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.bypass == nil || len(f.Controllers) == 0 {
			continue
		}
		lines := eventTies(w.events, f.Controllers, byRef)
		var lost []fieldTie
		for _, t := range named {
			ref := t.w.ref.String()
			if j := slices.IndexFunc(f.Unrelated, func(c Controller) bool { return c.Object.String() == ref }); j >= 0 {
				f.Controllers = append([]Controller{f.Unrelated[j]}, f.Controllers...)
				f.Unrelated = slices.Delete(f.Unrelated, j, j+1)
			}
			if !slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Object.String() == ref }) {
				if !mayUpdate(rb, o, t.w) {
					lost = append(lost, t)
					continue
				}
				c := t.w.controller()
				c.Evidence = []string{"runs as " + saRef(t.w.ref.Namespace, t.w.serviceAccount)}
				f.Controllers = append([]Controller{*c}, f.Controllers...)
			}
			lines[ref] = t.line
		}
		if len(lost) > 0 {
			x.rightsLost(ctx, o, f, lost[0])
			continue
		}
		x.rankByObjectLinks(ctx, o, f, w, lines)
		if len(lines) == 0 {
			continue
		}
		for j := range f.Controllers {
			if line, ok := lines[f.Controllers[j].Object.String()]; ok {
				f.Controllers[j].Confidence = ConfidenceHigh
				f.Controllers[j].Ties = append([]string{string(ConfidenceHigh) + ": " + line}, f.Controllers[j].Ties...)
			}
		}
		rankAdderFirst(f, adderEvidence{answering: lines})
	}
}

// rightsLost makes the workload the object names as its reconciler the finalizer's remover when
// its service account may not update the object: it runs, but the rights it had to remove the
// finalizer were lost. The candidates RBAC found are listed apart (the object names another).
// When the object's namespace is being deleted, its RoleBindings went with the namespace's
// content and none can be made there again: removing the finalizer by hand is the way out, first.
// Otherwise the first step is to give the account its right back, the strip the last resort.
func (x *Explainer) rightsLost(ctx context.Context, o subject, f *Finalizer, t fieldTie) {
	what := o.ref().QualifiedResource()
	sa := saRef(t.w.ref.Namespace, t.w.serviceAccount)
	c := t.w.controller()
	c.Confidence = ConfidenceHigh
	c.Ties = []string{string(ConfidenceHigh) + ": " + t.line}
	c.Evidence = []string{"runs as " + sa, t.line, fmt.Sprintf("%s may not update %s: no role bound to it grants that any more, so it cannot remove the finalizer", sa, what)}
	for _, u := range f.Controllers {
		if !u.Found && u.Object.Name == "" {
			continue
		}
		u.Note = fmt.Sprintf("may update %s, but the object's own status or spec names %s as its reconciler", what, c.Object.String())
		f.Unrelated = append(f.Unrelated, u)
	}
	ns := o.obj.GetNamespace()
	going, _ := x.namespaceGoing(ctx, ns, &f.Unchecked)
	strip := *f.bypass
	if going != nil {
		c.Evidence = append(c.Evidence, fmt.Sprintf("the object's namespace namespaces/%s is being deleted: the namespace controller deletes its RoleBindings with the rest of its content, so a binding there that let %s update %s is gone, and none can be made there again", ns, sa, what))
		c.Note = fmt.Sprintf("the object names it as its reconciler, and it runs, but it lost the rights to update %s (its binding in namespaces/%s went with the namespace's content)", what, ns)
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand (orphaned: its reconciler lost its rights): %s, which the object names as its reconciler, runs, but %s may no longer update %s, and no binding can be made in namespaces/%s while it is being deleted. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, c.Object.String(), sa, what, ns)
		f.Remedies = []Remediation{strip}
	} else {
		c.Note = fmt.Sprintf("the object names it as its reconciler, and it runs, but it lost the rights to update %s", what)
		f.Remedies = []Remediation{
			{Summary: fmt.Sprintf("Give %s back the right to update %s (bind it again to the role its install bound it to): %s, which the object names as its reconciler, then removes %s itself.", sa, what, c.Object.String(), f.Name)},
			strip,
		}
	}
	f.Controllers = []Controller{*c}
	f.Attribution = c.Note
	f.Orphaned = true
}
