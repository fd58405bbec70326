package finalizers

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// explainNoFinalizers covers an object whose deletion is requested and that has no finalizer
// left. A pod waits for its kubelet to confirm graceful termination; anything else should be
// gone at once, so its presence is worth reporting as it is.
func (x *Explainer) explainNoFinalizers(ctx context.Context, o subject, e *Explanation) {
	if o.res.Group != "" || o.res.Resource != "pods" {
		e.PendingCode = ReasonNoFinalizerLeft
		e.Pending = "No finalizer is left: the API server removes the object once its deletion completes. If it is still listed, read it again."
		return
	}
	pod, err := x.c.Kube.CoreV1().Pods(o.obj.GetNamespace()).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	if err != nil {
		e.PendingCode = ReasonPodUnread
		e.Pending = "The pod waits for graceful termination; it could not be read: " + failureText("reading pod", err)
		return
	}
	grace := int64(0)
	if pod.DeletionGracePeriodSeconds != nil {
		grace = *pod.DeletionGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" {
		e.PendingCode = ReasonPodNeverScheduled
		e.Pending = "The pod was never scheduled; the API server deletes it without a kubelet."
		return
	}
	if ok, evidence := x.podShuttingDown(ctx, pod); ok {
		e.Deleting = true
		e.recordProgress(evidence)
		e.PendingCode = ReasonPodShuttingDown
		e.Pending = fmt.Sprintf("The pod is shutting down: the kubelet on node %s stops its containers and then deletes it, at the latest when the grace period of %ds ends. Nothing to do.", pod.Spec.NodeName, grace)
		return
	}
	n := x.node(ctx, pod.Spec.NodeName)
	if n.gap != (report.Gap{}) {
		e.Unchecked = append(e.Unchecked, n.gap)
	}
	e.PendingCode = ReasonPodAwaitsKubelet
	e.Pending = fmt.Sprintf("The pod waits for the kubelet on node %s to confirm that its containers stopped (grace period %ds). Node %s.", pod.Spec.NodeName, grace, n.state)
	e.Remedies = []Remediation{{
		Code:       ReasonForceDeletePod,
		Summary:    "Only if the node is gone for good: force the deletion, so the API server stops waiting for its kubelet.",
		Command:    x.kubectl(pod.Namespace, "delete", "pod", pod.Name, "--grace-period=0", "--force"),
		Cost:       "the containers may still be running on that node; for a StatefulSet pod a second copy can start elsewhere while the first still writes",
		LastResort: true,
		request:    deleteRequest(podsResource, pod.Namespace, pod.Labels),
	}}
}
