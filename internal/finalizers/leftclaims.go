package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Bounds of the reads that find the claims a strip leaves: the StatefulSets and claims listed
// per namespace, the intermediate owners read to see ownership one level down, and the claims
// named (each with one read of its volume).
const (
	maxListedForClaims = 500
	maxIntermediate    = 8
	maxLeftClaims      = 8
)

var (
	statefulSetsResource = kinds.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	volumesResource      = kinds.Resource{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume"}
)

// ownedSet is a StatefulSet the object owns, directly or through one owned object between.
type ownedSet struct {
	sts *appsv1.StatefulSet
	via string // the owned object between, "" when owned directly
}

// statefulSets are the StatefulSets of one namespace, at most maxListedForClaims; more says that
// the namespace holds others, not read.
type statefulSets struct {
	Items []appsv1.StatefulSet
	more  bool
}

// namespaceStatefulSets lists the StatefulSets of ns once per command, at most
// maxListedForClaims. In a sweep they are cut out of the cluster-wide list the shared reads
// make anyway (workloads): a LIST returns them in storage order, one namespace after another,
// so the cut holds the same ones in the same order as a LIST of the namespace; where the
// cluster-wide list failed they are listed in the namespace alone.
func (x *Explainer) namespaceStatefulSets(ctx context.Context, ns string) (*statefulSets, error) {
	return cached(x, "statefulsets/"+ns, func() (*statefulSets, error) {
		x.mu.Lock()
		shared := x.sharedRead
		x.mu.Unlock()
		if shared {
			if all, err := x.clusterStatefulSets(ctx); err == nil {
				out := &statefulSets{}
				for i := range all {
					if all[i].Namespace != ns {
						continue
					}
					if len(out.Items) == maxListedForClaims {
						out.more = true
						break
					}
					out.Items = append(out.Items, all[i])
				}
				return out, nil
			}
		}
		l, err := x.c.Kube.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{Limit: maxListedForClaims})
		if err != nil {
			return nil, err
		}
		return &statefulSets{Items: l.Items, more: l.Continue != ""}, nil
	})
}

// ownedStatefulSets lists the StatefulSets of the object's namespace and returns those it owns by
// uid, directly or one level down (a StatefulSet whose owner the object owns). A failed or
// bounded read is returned as a gap.
func (x *Explainer) ownedStatefulSets(ctx context.Context, o subject) ([]ownedSet, []report.Gap) {
	ns, uid := o.obj.GetNamespace(), o.obj.GetUID()
	sets, err := x.namespaceStatefulSets(ctx, ns)
	if err != nil {
		return nil, []report.Gap{listGap(typeID(statefulSetsResource, ns), "whether the object owns StatefulSets whose claims a finalizer strip leaves behind", err)}
	}
	var gaps []report.Gap
	if sets.more {
		gaps = append(gaps, boundGap(report.OpList, typeID(statefulSetsResource, ns), fmt.Sprintf("more StatefulSets than are read (bound of %d): those past it were not checked for claims a strip leaves", maxListedForClaims)))
	}
	var out []ownedSet
	owned := map[types.UID]string{} // intermediate owners read: uid → "" not owned, else its name
	reads := 0
	for i := range sets.Items {
		s := &sets.Items[i]
		if _, ok := ownerRefTo(s, uid); ok {
			out = append(out, ownedSet{sts: s})
			continue
		}
		for _, r := range s.OwnerReferences {
			via, seen := owned[r.UID]
			if !seen {
				if reads++; reads > maxIntermediate {
					gaps = append(gaps, boundGap(report.OpGet, typeID(statefulSetsResource, ns), fmt.Sprintf("more owners of StatefulSets than are read (bound of %d): whether the object owns them was not checked", maxIntermediate)))
					return out, gaps
				}
				var g *report.Gap
				via, g = x.ownedBy(ctx, ns, r, uid)
				if g != nil {
					gaps = append(gaps, *g)
				}
				owned[r.UID] = via
			}
			if via != "" {
				out = append(out, ownedSet{sts: s, via: via})
				break
			}
		}
	}
	return out, gaps
}

// ownedBy reads the owner r (in namespace ns) names and returns it as `resource/name` when it is
// itself owned by uid, "" when not; a failed read is a gap.
func (x *Explainer) ownedBy(ctx context.Context, ns string, r metav1.OwnerReference, uid types.UID) (string, *report.Gap) {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return "", nil
	}
	res, ok := x.catalog.ForGroupKind(schema.GroupKind{Group: gv.Group, Kind: r.Kind})
	if !ok || !res.Namespaced {
		return "", nil
	}
	m, err := x.c.Metadata.Resource(res.GVR()).Namespace(ns).Get(ctx, r.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// An owner that is gone owns nothing of the object's.
		return "", nil
	}
	if err != nil {
		g := getGap(refFor(res, ns, r.Name).ID(), "whether the object owns it, and so the StatefulSets it owns and their claims", err)
		return "", &g
	}
	if m.UID != r.UID {
		return "", nil
	}
	if _, ok := ownerRefTo(m, uid); !ok {
		return "", nil
	}
	return refFor(res, ns, r.Name).String(), nil
}

// leftClaims returns the claims that the StatefulSets in sets made from their
// volumeClaimTemplates (`<template>-<statefulset>-<ordinal>`) and that garbage collection keeps
// when it deletes the StatefulSets: every one that does not carry an ownerReference to the
// StatefulSet or one of its pods (which is how a retention policy of Delete has them deleted).
// Each is named fully qualified, with its volume and the volume's reclaim policy when read.
func (x *Explainer) leftClaims(ctx context.Context, ns string, sets []ownedSet) ([]string, []report.Gap) {
	if len(sets) == 0 {
		return nil, nil
	}
	claims, err := cached(x, "persistentvolumeclaims/"+ns, func() (*corev1.PersistentVolumeClaimList, error) {
		return x.c.Kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{Limit: maxListedForClaims})
	})
	if err != nil {
		return nil, []report.Gap{listGap(typeID(claimsResource, ns), "which claims of the owned StatefulSets a finalizer strip leaves behind", err)}
	}
	var gaps []report.Gap
	if claims.Continue != "" {
		gaps = append(gaps, boundGap(report.OpList, typeID(claimsResource, ns), fmt.Sprintf("more claims than are read (bound of %d): those past it were not checked", maxListedForClaims)))
	}
	var out []string
	for _, s := range sets {
		for i := range claims.Items {
			c := &claims.Items[i]
			tpl, ok := madeBy(c, s.sts)
			if !ok || deletedWith(c, s.sts) {
				continue
			}
			if len(out) == maxLeftClaims {
				return append(out, "and more"), gaps
			}
			text, g := x.claimText(ctx, c, s, tpl)
			if g != nil {
				gaps = append(gaps, *g)
			}
			out = append(out, text)
		}
	}
	return out, gaps
}

// madeBy returns the volumeClaimTemplate of sts whose claim c is by name:
// `<template>-<statefulset>-<ordinal>`.
func madeBy(c *corev1.PersistentVolumeClaim, sts *appsv1.StatefulSet) (string, bool) {
	for _, t := range sts.Spec.VolumeClaimTemplates {
		ord, ok := strings.CutPrefix(c.Name, t.Name+"-"+sts.Name+"-")
		if ok && ordinal(ord) {
			return t.Name, true
		}
	}
	return "", false
}

func ordinal(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// deletedWith reports whether garbage collection deletes claim c with sts: it carries an
// ownerReference to the StatefulSet or to one of its pods, as the StatefulSet controller sets
// when the retention policy says Delete.
func deletedWith(c *corev1.PersistentVolumeClaim, sts *appsv1.StatefulSet) bool {
	for _, r := range c.OwnerReferences {
		if r.UID == sts.UID {
			return true
		}
		if ord, ok := strings.CutPrefix(r.Name, sts.Name+"-"); ok && r.Kind == "Pod" && r.APIVersion == "v1" && ordinal(ord) {
			return true
		}
	}
	return false
}

// claimText names claim c, the StatefulSet and template it came from, and its volume with the
// volume's reclaim policy, read; a failed read of the volume is a gap.
func (x *Explainer) claimText(ctx context.Context, c *corev1.PersistentVolumeClaim, s ownedSet, tpl string) (string, *report.Gap) {
	from := refFor(statefulSetsResource, s.sts.Namespace, s.sts.Name).String()
	if s.via != "" {
		from += " (owned through " + s.via + ")"
	}
	text := refFor(claimsResource, c.Namespace, c.Name).String() + " (from volumeClaimTemplate " + tpl + " of " + from
	if p := s.sts.Spec.PersistentVolumeClaimRetentionPolicy; p != nil && p.WhenDeleted == appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
		text += "; its retention policy says Delete, but the claim carries no ownerReference that has it deleted"
	}
	text += ")"
	pv := c.Spec.VolumeName
	if pv == "" {
		return text + ", not bound to a volume", nil
	}
	text += ", bound to " + refFor(volumesResource, "", pv).String()
	v, err := x.c.Kube.CoreV1().PersistentVolumes().Get(ctx, pv, metav1.GetOptions{})
	if err != nil {
		g := getGap(refFor(volumesResource, "", pv).ID(), "the reclaim policy of the volume of a claim a finalizer strip leaves behind", err)
		return text + " (reclaim policy not read)", &g
	}
	if p := v.Spec.PersistentVolumeReclaimPolicy; p != "" {
		text += " (reclaim policy " + string(p) + ")"
	}
	return text, nil
}

// nameOwnedClaims adds to the cost of every finalizer strip the claims garbage collection leaves
// when the object goes: the object's StatefulSets (owned by uid, directly or one level down)
// are collected, but the claims their volumeClaimTemplates made stay unless their retention
// policy deletes them, and an owner's cleanup that would have removed them never runs. Only
// read when a strip is offered; failed reads are recorded as unchecked and named in the cost.
func (x *Explainer) nameOwnedClaims(ctx context.Context, o subject, e *Explanation) {
	if o.obj.GetNamespace() == "" || !offersStrip(e) {
		return
	}
	sets, gaps := x.ownedStatefulSets(ctx, o)
	claims, cgaps := x.leftClaims(ctx, o.obj.GetNamespace(), sets)
	gaps = append(gaps, cgaps...)
	for _, g := range gaps {
		if !slices.Contains(e.Unchecked, g) {
			e.Unchecked = append(e.Unchecked, g)
		}
	}
	var what string
	switch {
	case len(claims) > 0:
		what = "the claims the StatefulSets it owns made from their volumeClaimTemplates, which garbage collection keeps when it deletes the StatefulSets (no retention policy has them deleted): " + strings.Join(claims, "; ")
		if len(gaps) > 0 {
			what += " (possibly more: not all could be read, see unchecked)"
		}
	case len(gaps) > 0:
		what = "possibly claims of StatefulSets the object owns (garbage collection keeps claims made from volumeClaimTemplates): not all of them could be read (see unchecked)"
	default:
		return
	}
	for i := range e.Finalizers {
		for j := range e.Finalizers[i].Remedies {
			r := &e.Finalizers[i].Remedies[j]
			if rest, ok := strings.CutPrefix(r.Cost, "left behind: "); ok && (r.LastResort || r.Code == ReasonStripFinalizer) && !strings.Contains(rest, what) {
				r.Cost = "left behind: " + what + "; and " + rest
			}
		}
	}
}

// offersStrip reports whether any finalizer's steps strip it by hand with a cost of what is left.
func offersStrip(e *Explanation) bool {
	for _, f := range e.Finalizers {
		for _, r := range f.Remedies {
			if (r.LastResort || r.Code == ReasonStripFinalizer) && strings.HasPrefix(r.Cost, "left behind: ") {
				return true
			}
		}
	}
	return false
}
