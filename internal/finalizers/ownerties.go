package finalizers

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// ownerObject reads an owner of a stuck object in full, once per command: the pause-marker
// search (pause.go) and the owner ties (ownerTies) walk the same chains.
func (x *Explainer) ownerObject(ctx context.Context, res kinds.Resource, ns, name string) (*unstructured.Unstructured, error) {
	if !res.Namespaced {
		ns = ""
	}
	return cached(x, "owner/"+res.GVR().String()+"/"+ns+"/"+name, func() (*unstructured.Unstructured, error) {
		if ns != "" {
			return x.c.Dynamic.Resource(res.GVR()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		}
		return x.c.Dynamic.Resource(res.GVR()).Get(ctx, name, metav1.GetOptions{})
	})
}

// ownerTies maps each candidate that reconciles an object of the stuck object's owner chain
// (its ownerReferences, and their owners', up to maxOwnerHops) to that tie (medium): a
// controller finalizes the children it makes for the objects it reconciles. A candidate
// reconciles an owner when
//   - the owner is a custom resource and the candidate's roles name its resource itself (or its
//     status or finalizers), not through a wildcard: a controller is granted its own types by
//     name; or
//   - the owner is a workload that is the candidate itself, or that shares a product label
//     (`app.kubernetes.io/part-of`, `name`, `instance`, `helm.sh/chart`, `app`, the Helm
//     release) with the same value: a workload of the candidate's product.
//
// The owners read are the ones the pause search reads anyway (ownerObject); an owner that is
// gone ends its branch, one that cannot be read is a gap.
func (x *Explainer) ownerTies(ctx context.Context, o subject, cands []workload, byRef map[string]workload, idx *productIndex, rb *rbacObjects) (map[string]tie, []report.Gap) {
	out := map[string]tie{}
	var gaps []report.Gap
	seen := map[string]bool{}
	ns := o.obj.GetNamespace()
	owners := o.obj.GetOwnerReferences()
	for hop := 1; hop <= maxOwnerHops && len(owners) > 0; hop++ {
		var next []metav1.OwnerReference
		for _, ref := range owners {
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			if err != nil || seen[string(ref.UID)+ref.Name] {
				continue
			}
			seen[string(ref.UID)+ref.Name] = true
			res, ok := x.resource(gv.Group, ref.Kind)
			if !ok {
				continue
			}
			r := refFor(res, ns, ref.Name)
			for _, w := range cands {
				if t, ok := reconcilesOwner(w, r, hop, byRef, idx, rb); ok && out[w.ref.String()].evidence == "" {
					out[w.ref.String()] = t
				}
			}
			if hop == maxOwnerHops {
				continue
			}
			owner, err := x.ownerObject(ctx, res, ns, ref.Name)
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				gaps = append(gaps, getGap(r.ID(), "reading owner "+r.String()+" for what its candidates reconcile", err))
				continue
			}
			next = append(next, owner.GetOwnerReferences()...)
		}
		owners = next
	}
	return out, gaps
}

// reconcilesOwner is the tie of w to an owner r of the stuck object, hop owners up (ownerTies).
func reconcilesOwner(w workload, r ObjectRef, hop int, byRef map[string]workload, idx *productIndex, rb *rbacObjects) (tie, bool) {
	whose := "the object's owner " + r.String()
	if hop > 1 {
		whose = fmt.Sprintf("%s, %d owners up the object's chain,", r.String(), hop)
	}
	mine := productOf(w.labels, w.annotations)
	if idx.crdGroups[r.Group] {
		if ts := rolesNameType(rb, w.ref.Namespace, w.serviceAccount, r.Group, r.Resource, r.QualifiedResource()); len(ts) > 0 {
			return tie{conf: ConfidenceMedium, evidence: fmt.Sprintf("%s is of a type it reconciles (%s): a controller finalizes what it makes for the objects it reconciles", whose, ts[0].evidence)}, true
		}
		for _, p := range idx.crdProducts[r.Group] {
			if k, v, ok := sharedLabel(mine, p.labels); ok {
				return tie{conf: ConfidenceMedium, evidence: fmt.Sprintf("%s is of a type its product installs (it shares %s=%s with %s): a controller finalizes what it makes for the objects it reconciles", whose, k, v, p.crd)}, true
			}
		}
	}
	ow, ok := byRef[r.String()]
	if !ok {
		return tie{}, false
	}
	if ow.ref.String() == w.ref.String() {
		return tie{conf: ConfidenceMedium, evidence: whose + " is this workload itself"}, true
	}
	if k, v, ok := sharedLabel(mine, productOf(ow.labels, ow.annotations)); ok {
		return tie{conf: ConfidenceMedium, evidence: fmt.Sprintf("%s is a workload of its product (both carry %s=%s)", whose, k, v)}, true
	}
	return tie{}, false
}

// sharedLabel is the first key, in order, that two sets of product labels carry with the same
// non-empty value.
func sharedLabel(a, b map[string]string) (string, string, bool) {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := a[k]; v != "" && b[k] == v {
			return k, v, true
		}
	}
	return "", "", false
}
