package finalizers

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/report"
)

// pvcProtection explains kubernetes.io/pvc-protection: kube-controller-manager's pvc-protection
// controller removes it once no scheduled pod uses the claim, either as a persistentVolumeClaim
// volume or as the generic ephemeral volume it was created for.
func (x *Explainer) pvcProtection(ctx context.Context, o subject) Finalizer {
	ns, name := o.obj.GetNamespace(), o.obj.GetName()
	f := Finalizer{
		Name:      "kubernetes.io/pvc-protection",
		RemovedBy: "kube-controller-manager (pvc-protection controller)",
		WaitsFor:  "no pod scheduled to a node uses the claim",
	}
	pods, err := x.pods(ctx, ns)
	if err != nil {
		f.Incomplete = append(f.Incomplete, listGap(typeID(podsResource, ns), "listing pods in namespace "+ns, err))
		return f
	}
	for i := range pods {
		p := &pods[i]
		vol, ok := usesClaim(p, name, o.obj)
		if !ok {
			continue
		}
		b, gaps := x.podBlocker(ctx, o, p, vol)
		f.Blockers = append(f.Blockers, b)
		f.Incomplete = append(f.Incomplete, gaps...)
	}
	sortBlockers(f.Blockers)
	cost, costIncomplete := x.claimCost(ctx, ns, name)
	f.Incomplete = append(f.Incomplete, costIncomplete...)
	if len(f.Blockers) == 0 {
		f.Remedies = []Remediation{{
			Summary: "No scheduled pod uses the claim, so the controller should release it within seconds. If it stays, check that kube-controller-manager is running with its pvc-protection controller enabled.",
		}}
		return f
	}
	for _, b := range f.Blockers {
		f.Remedies = append(f.Remedies, x.drainPodRemedy(b, cost))
	}
	return f
}

// usesClaim reports whether pod p holds claim as the pvc-protection controller sees it, and
// through which volume: only pods bound to a node count.
func usesClaim(p *corev1.Pod, claim string, claimObj metav1.Object) (string, bool) {
	if p.Spec.NodeName == "" {
		return "", false
	}
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			return v.Name, true
		}
		if v.Ephemeral != nil && p.Name+"-"+v.Name == claim && ownedBy(claimObj, p.UID) {
			return v.Name, true
		}
	}
	return "", false
}

func ownedBy(obj metav1.Object, uid types.UID) bool {
	for _, r := range obj.GetOwnerReferences() {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// podBlocker describes a pod that holds a claim: the volume, where it is mounted, phase, age,
// node, owner chain and GitOps owner; a pod that is itself Terminating is explained in turn.
func (x *Explainer) podBlocker(ctx context.Context, o subject, p *corev1.Pod, volume string) (Blocker, []report.Gap) {
	b := Blocker{
		Object: x.podRef(p),
		Code:   ReasonPVCProtectionPod,
		Reason: fmt.Sprintf("mounts the claim as volume %q", volume),
		Details: []string{
			"phase " + string(p.Status.Phase),
			"age " + Age(x.now.Sub(p.CreationTimestamp.Time)),
			"node " + p.Spec.NodeName,
		},
		labels: p.Labels,
	}
	if mounts := mountPaths(p, volume); len(mounts) > 0 {
		b.Details = append(b.Details, "mounted at "+strings.Join(mounts, ", "))
	}
	var gaps []report.Gap
	b.OwnerChain, b.GitOps, gaps = x.ownerChain(ctx, p)
	if p.DeletionTimestamp != nil && o.depth < maxDepth {
		if res, ok := x.resource("", "Pod"); ok {
			b.Terminating = x.explain(ctx, res, p, o.depth+1)
		}
	}
	return b, gaps
}

func mountPaths(p *corev1.Pod, volume string) []string {
	var out []string
	for _, c := range append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if m.Name == volume {
				out = append(out, fmt.Sprintf("%s in container %s", m.MountPath, c.Name))
			}
		}
	}
	return out
}

// drainPodRemedy is the safe way to release a claim: delete the pod that mounts it, and say what
// recreates the pod and what happens to the data.
func (x *Explainer) drainPodRemedy(b Blocker, cost string) Remediation {
	r := Remediation{
		Code:    ReasonDeletePod,
		Command: x.kubectl(b.Object.Namespace, "delete", "pod", b.Object.Name),
		Cost:    cost,
		request: deleteRequest(podsResource, b.Object.Namespace, b.labels),
	}
	if w := topWorkload(b.OwnerChain); w != nil {
		r.Summary = fmt.Sprintf("Delete pod %s: pvc-protection then releases the claim and its deletion completes. %s recreates the pod; it runs without the claim once the new spec (without the volume) is applied, and until then it waits for the claim (Flux recreates it if its Kustomization still declares it).",
			b.Object.Name, w.String())
	} else {
		r.Summary = fmt.Sprintf("Delete pod %s: pvc-protection then releases the claim and its deletion completes. Nothing recreates this pod.", b.Object.Name)
	}
	return r
}

// claimCost says what finishing the claim's deletion loses, from the bound volume's reclaim policy.
func (x *Explainer) claimCost(ctx context.Context, ns, name string) (string, []report.Gap) {
	pvc, err := x.c.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "unknown: the claim could not be read", []report.Gap{getGap(typeID(claimsResource, ns).Named(name), "reading claim "+ns+"/"+name, err)}
	}
	size := ""
	if q, ok := pvc.Status.Capacity[corev1.ResourceStorage]; ok {
		size = q.String()
	} else if q, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		size = q.String()
	}
	if pvc.Spec.VolumeName == "" {
		return fmt.Sprintf("the claim (%s requested) is not bound to a volume, so no data is lost", size), nil
	}
	pv, err := x.c.Kube.CoreV1().PersistentVolumes().Get(ctx, pvc.Spec.VolumeName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Sprintf("the bound volume %s no longer exists", pvc.Spec.VolumeName), nil
	}
	if err != nil {
		return "unknown: the bound volume could not be read", []report.Gap{getGap(objectID("", "v1", "persistentvolumes", "", pvc.Spec.VolumeName), "reading persistentvolumes/"+pvc.Spec.VolumeName, err)}
	}
	return reclaimCost(pv, size), nil
}

func reclaimCost(pv *corev1.PersistentVolume, size string) string {
	policy := pv.Spec.PersistentVolumeReclaimPolicy
	switch policy {
	case corev1.PersistentVolumeReclaimRetain:
		return fmt.Sprintf("the data survives: volume persistentvolumes/%s (%s) has reclaim policy Retain and is kept as Released; rebind or delete it by hand", pv.Name, size)
	case corev1.PersistentVolumeReclaimDelete:
		return fmt.Sprintf("the %s of data in volume persistentvolumes/%s is lost: its reclaim policy is Delete. Copy out what you need first", size, pv.Name)
	}
	return fmt.Sprintf("volume persistentvolumes/%s (%s) has reclaim policy %s", pv.Name, size, policy)
}

// pvProtection explains kubernetes.io/pv-protection: the pv-protection controller removes it
// once no claim is bound to the volume.
func (x *Explainer) pvProtection(ctx context.Context, o subject) Finalizer {
	f := Finalizer{
		Name:      "kubernetes.io/pv-protection",
		RemovedBy: "kube-controller-manager (pv-protection controller)",
		WaitsFor:  "the volume is no longer bound to a claim",
	}
	pv, err := x.c.Kube.CoreV1().PersistentVolumes().Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	if err != nil {
		f.Incomplete = append(f.Incomplete, getGap(o.ref().ID(), "reading persistentvolumes/"+o.obj.GetName(), err))
		return f
	}
	cost := reclaimCost(pv, pv.Spec.Capacity.Storage().String())
	if pv.Status.Phase != corev1.VolumeBound || pv.Spec.ClaimRef == nil {
		f.Remedies = []Remediation{{Summary: fmt.Sprintf("The volume is %s, not bound: the controller should release it shortly; if it stays, check kube-controller-manager.", pv.Status.Phase)}}
		return f
	}
	cr := pv.Spec.ClaimRef
	claimRef := ObjectRef{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespace: cr.Namespace, Name: cr.Name}
	b := Blocker{Object: claimRef, Code: ReasonPVBoundToClaim, Reason: "is bound to the volume", Details: []string{"reclaim policy " + string(pv.Spec.PersistentVolumeReclaimPolicy)}}
	del := &apiRequest{op: admissionv1.Delete, res: claimsResource, namespace: cr.Namespace}
	if res, ok := x.resource("", "PersistentVolumeClaim"); ok && o.depth < maxDepth {
		claim, err := x.c.Metadata.Resource(res.GVR()).Namespace(cr.Namespace).Get(ctx, cr.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			b.GitOps = gitOpsOwner(claim.GetLabels())
			del.labels, del.labelsKnown = claim.GetLabels(), true
			if claim.GetDeletionTimestamp() != nil {
				b.Terminating = x.explain(ctx, res, claim, o.depth+1)
			}
		case !apierrors.IsNotFound(err):
			f.Incomplete = append(f.Incomplete, getGap(claimRef.ID(), "reading "+claimRef.String(), err))
		}
	}
	f.Blockers = []Blocker{b}
	f.Remedies = []Remediation{{
		Code:    ReasonDeleteClaim,
		Summary: fmt.Sprintf("Delete the claim %s once nothing mounts it (see its own explanation); the volume is then released.", claimRef.String()),
		Command: x.kubectl(cr.Namespace, "delete", "persistentvolumeclaim", cr.Name),
		Cost:    cost,
		request: del,
	}}
	return f
}
