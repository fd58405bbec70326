package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// generatedClaim is a claim in the stuck object's namespace that was made for it, and how that
// is known.
type generatedClaim struct {
	claim *corev1.PersistentVolumeClaim
	why   string
}

// applyGeneratedInUse names what a remover that runs and does not finish waits for when the
// stuck object's controller made storage for it: the claims in the object's namespace generated
// for it (named like it, owned by it, or carrying a label whose key names it as
// `<namespace>-<name>`) that a scheduled pod still mounts and that has not completed. A
// controller that deletes what it made before it releases the object cannot delete a claim in
// use (pvc-protection holds it), so it waits; those pods are the blockers, each with the step
// to delete it, and stripping the finalizer is never offered while they run (it leaves the claim
// and its volume behind, in use). Failed reads make the finalizer UNKNOWN while no pod is
// proven; the object's finalizers whose remover is not known to run are left alone. Objects of
// the core group are not read this way: a claim, pod or Service is not what makes claims, and
// one named like a claim beside it is no evidence that it made the claim.
func (x *Explainer) applyGeneratedInUse(ctx context.Context, o subject, e *Explanation) {
	ns := o.obj.GetNamespace()
	if ns == "" || o.res.Group == "" || !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	blockers, gaps := x.generatedClaimUsers(ctx, o)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		if len(blockers) == 0 {
			f.Incomplete = append(f.Incomplete, gaps...)
			continue
		}
		f.Unchecked = append(f.Unchecked, gaps...)
		f.Blockers = append(f.Blockers, blockers...)
		var fixes []Remediation
		for _, b := range blockers {
			fixes = append(fixes, x.generatedClaimFix(o, *f, b))
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.LastResort || r.Code == ReasonStripFinalizer })
		f.Remedies = append(fixes, rest...)
	}
}

// generatedClaimUsers lists the claims of the object's namespace (once per command, shared with
// leftClaims), keeps those generated for it, and returns the running pods that mount them as
// blockers.
func (x *Explainer) generatedClaimUsers(ctx context.Context, o subject) ([]Blocker, []report.Gap) {
	ns := o.obj.GetNamespace()
	claims, err := cached(x, "persistentvolumeclaims/"+ns, func() (*corev1.PersistentVolumeClaimList, error) {
		return x.c.Kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{Limit: maxListedForClaims})
	})
	if err != nil {
		return nil, []report.Gap{listGap(typeID(claimsResource, ns), "listing claims in namespace "+ns+" to find those made for "+o.ref().String()+" that running pods still mount", err)}
	}
	var gaps []report.Gap
	if claims.Continue != "" {
		gaps = append(gaps, boundGap(report.OpList, typeID(claimsResource, ns), fmt.Sprintf("more claims than are read (bound of %d): those past it were not checked for pods that mount them", maxListedForClaims)))
	}
	made := generatedClaims(o.obj, claims.Items)
	if len(made) == 0 {
		return nil, gaps
	}
	pods, err := x.pods(ctx, ns)
	if err != nil {
		return nil, append(gaps, listGap(typeID(podsResource, ns), "listing pods in namespace "+ns+" that may mount the claims made for "+o.ref().String(), err))
	}
	var out []Blocker
	for _, g := range made {
		claimRef := refFor(claimsResource, ns, g.claim.Name).String()
		for i := range pods {
			p := &pods[i]
			if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
				continue
			}
			vol, ok := usesClaim(p, g.claim.Name, g.claim)
			if !ok {
				continue
			}
			b, more := x.podBlocker(ctx, o, p, vol)
			gaps = append(gaps, more...)
			b.Code = ReasonGeneratedClaimInUse
			b.Reason = fmt.Sprintf("mounts %s, which was made for the stuck object (%s), as volume %q", claimRef, g.why, vol)
			if g.claim.Spec.VolumeName != "" {
				b.Details = append(b.Details, "the claim is bound to "+refFor(volumesResource, "", g.claim.Spec.VolumeName).String())
			}
			out = append(out, b)
		}
	}
	sortBlockers(out)
	return out, gaps
}

// generatedClaims are the claims made for obj: named like it, owned by it, or labelled with a
// key whose name part is `<namespace>-<name>` or ends in `-<namespace>-<name>`.
func generatedClaims(obj metav1.Object, claims []corev1.PersistentVolumeClaim) []generatedClaim {
	var out []generatedClaim
	full := obj.GetNamespace() + "-" + obj.GetName()
	for i := range claims {
		c := &claims[i]
		var why string
		switch {
		case c.Name == obj.GetName():
			why = "named like it, in its namespace"
		case obj.GetUID() != "" && ownedBy(c, obj.GetUID()):
			why = "it owns the claim"
		default:
			for k := range c.Labels {
				_, n, _ := strings.Cut(k, "/")
				if n == "" {
					n = k
				}
				if n == full || strings.HasSuffix(n, "-"+full) {
					why = "labelled " + k + ", which names it"
					break
				}
			}
		}
		if why != "" {
			out = append(out, generatedClaim{claim: c, why: why})
		}
	}
	return out
}

// generatedClaimFix is the way out of one pod that mounts a claim made for the stuck object:
// delete it (or stop what runs it); the remover then deletes the claim and releases the object.
func (x *Explainer) generatedClaimFix(o subject, f Finalizer, b Blocker) Remediation {
	self := o.ref().String()
	p := b.Object
	remover := "the controller that removes " + f.Name
	if len(f.Controllers) > 0 && f.Controllers[0].Found {
		remover = f.Controllers[0].Object.String() + ", which removes " + f.Name + ","
	}
	again := "Nothing recreates this pod."
	if w := topWorkload(b.OwnerChain); w != nil {
		again = fmt.Sprintf("%s recreates it: scale that to zero or delete it instead if the pod must not come back.", w.String())
	}
	return Remediation{
		Code: ReasonDeletePod,
		Summary: fmt.Sprintf("Delete %s once its work may stop: it %s. %s deletes what it made for %s before it releases it, and cannot while a running pod mounts the claim; it then finishes on its own. %s Never strip %s while the pod runs: the strip leaves the claim and its volume behind, still in use.",
			p.String(), b.Reason, remover, self, again, f.Name),
		Command: x.kubectl(p.Namespace, "delete", "pod", p.Name),
		Cost:    "the pod's work stops; then the claim made for " + self + " and what its volume holds go as the controller and the volume's reclaim policy decide",
		request: deleteRequest(podsResource, p.Namespace, b.labels),
	}
}
