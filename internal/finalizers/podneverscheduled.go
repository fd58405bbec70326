package finalizers

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// applyPodNeverScheduled explains a pod's finalizer whose remover runs while the pod never had a
// node (no spec.nodeName) and has not finished. No kubelet will ever start or finish such a pod,
// so a remover that waits for the pod to finish, or for clean-up on its node (a node agent's), waits
// for ever; and no container of it ever ran, so nothing node-local of it exists to clean up. The
// finalizer is orphaned (its remover runs but will never come back to it): removing it by hand is
// the way out, first, with the cost the finalizer's explanation gives. What other components
// reported on the pod (the scheduler's FailedScheduling) is named as a fact about the pod.
func (x *Explainer) applyPodNeverScheduled(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if o.res.Group != "" || o.res.Resource != "pods" || !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	var node, phase string
	if w.obj != nil {
		node, _, _ = unstructured.NestedString(w.obj.Object, "spec", "nodeName")
		phase, _, _ = unstructured.NestedString(w.obj.Object, "status", "phase")
	} else {
		pod, err := x.c.Kube.CoreV1().Pods(o.obj.GetNamespace()).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) {
				e.Unchecked = append(e.Unchecked, getGap(o.ref().ID(), "reading "+o.ref().String()+" for its node and phase", err))
			}
			return
		}
		node, phase = pod.Spec.NodeName, string(pod.Status.Phase)
	}
	if node != "" || phase == "Succeeded" || phase == "Failed" {
		return
	}
	if phase == "" {
		phase = "unknown"
	}
	fact := ""
	for _, ev := range w.events {
		if ev.Reason == "FailedScheduling" {
			fact = fmt.Sprintf("; %s reports %s: %q", orUnknown(ev.Source), ev.Reason, ev.Message)
		}
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || f.bypass == nil {
			continue
		}
		remover := f.Controllers[0].Object.String()
		why := fmt.Sprintf("the pod never had a node (no spec.nodeName, phase %s%s): no kubelet will ever start or finish it, so %s, which removes %s once the pod has finished or what it left on its node is cleaned up, waits for ever; no container of it ever ran, so nothing of it exists on any node to clean up", phase, fact, remover, f.Name)
		f.Controllers[0].Evidence = append(f.Controllers[0].Evidence, why)
		strip := *f.bypass
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand (orphaned: the pod never had a node): %s. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, why)
		f.Orphaned = true
		f.Remedies = []Remediation{strip}
	}
}
