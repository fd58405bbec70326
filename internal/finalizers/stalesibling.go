package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// maxSiblings bounds the objects of the stuck object's type read to compare finalizers: one
// metadata page. A longer list makes no claim.
const maxSiblings = 200

// inGroupDomain reports whether a finalizer's domain is the API group or a subdomain of it
// (`finalizers.ippool.multinic.fms.io` of the group multinic.fms.io): the group's own
// controller wrote it.
func inGroupDomain(name, group string) bool {
	d := finalizerDomain(name)
	return group != "" && d != "" && (d == group || strings.HasSuffix(d, "."+group))
}

// staleAgainstSiblings words why a finalizer of the object's own group is one no running
// release puts on objects of its type: the other objects of that type (in its namespace, one
// bounded page, not being deleted) carry finalizers of the group, none carries this one, and
// the object carries none of theirs. What the running controller puts on its objects is what
// those objects carry; a finalizer none of them has is left from another release (one that
// named it after another kind) or was written by hand, and the controller that runs never
// removes it. "" when the evidence is not there: no sibling with a finalizer of the group, one
// carrying this finalizer, or more objects than one page.
func staleAgainstSiblings(obj metav1.Object, name, group, resource string, siblings []metav1.PartialObjectMetadata) string {
	if !inGroupDomain(name, group) {
		return ""
	}
	theirs := map[string]int{}
	with := 0
	for _, s := range siblings {
		if s.GetName() == obj.GetName() || s.GetDeletionTimestamp() != nil {
			continue
		}
		carried := false
		for _, f := range s.GetFinalizers() {
			if f == name {
				return ""
			}
			if inGroupDomain(f, group) {
				theirs[f]++
				carried = true
			}
		}
		if carried {
			with++
		}
	}
	if with == 0 {
		return ""
	}
	var names []string
	for f := range theirs {
		if slices.Contains(obj.GetFinalizers(), f) {
			return ""
		}
		names = append(names, f)
	}
	sort.Strings(names)
	return fmt.Sprintf("no other %s with a finalizer of its group carries it (%d read); they carry %s, which their running controller puts on them, and this object does not: it is left from another release or was written by hand, and the controller that runs never removes it", resource, with, quote(names))
}

// applyStaleSibling makes a finalizer whose remover runs orphaned when the other objects of its
// type show it is not the one their running controller puts on them (staleAgainstSiblings):
// removing that one finalizer by hand is the way out, with its cost, before any referrer or
// log. One metadata page of the type is read, only for a finalizer of the object's own group;
// a failed read is unchecked and makes no claim.
func (x *Explainer) applyStaleSibling(ctx context.Context, o subject, f *Finalizer, k known) {
	if !removerRuns(*f) || !inGroupDomain(f.Name, o.res.Group) {
		return
	}
	ns := ""
	if o.res.Namespaced {
		ns = o.obj.GetNamespace()
	}
	l, err := cached(x, "siblings/"+o.res.GVR().String()+"/"+ns, func() (*metav1.PartialObjectMetadataList, error) {
		return x.c.Metadata.Resource(o.res.GVR()).Namespace(ns).List(ctx, metav1.ListOptions{Limit: maxSiblings})
	})
	if err != nil {
		f.Unchecked = append(f.Unchecked, listGap(objectID(o.res.Group, o.res.Version, o.res.Resource, ns, ""), "listing the other "+o.res.Resource+" to compare their finalizers", err))
		return
	}
	if l.Continue != "" {
		f.Unchecked = append(f.Unchecked, boundGap(report.OpList, objectID(o.res.Group, o.res.Version, o.res.Resource, ns, ""), fmt.Sprintf("more %s than one page (%d) to compare their finalizers with", o.res.Resource, maxSiblings)))
		return
	}
	why := staleAgainstSiblings(o.obj, f.Name, o.res.Group, o.ref().QualifiedResource(), l.Items)
	if why == "" {
		return
	}
	strip := x.stripStep(o, f.Name, k)
	strip.LastResort = false
	strip.Summary = fmt.Sprintf("Remove finalizer %s by hand (orphaned: its controller runs but will never remove it): %s. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, why)
	f.Orphaned = true
	f.Remedies = []Remediation{strip}
}
