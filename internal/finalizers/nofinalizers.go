package finalizers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

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
		e.Pending = fmt.Sprintf("The pod is shutting down: the kubelet of nodes/%s stops its containers and then deletes it, at the latest when the grace period of %ds ends. Nothing to do.", pod.Spec.NodeName, grace)
		return
	}
	n := x.node(ctx, pod.Spec.NodeName)
	if n.gap != (report.Gap{}) {
		e.Unchecked = append(e.Unchecked, n.gap)
	}
	e.PendingCode = ReasonPodAwaitsKubelet
	e.Pending = fmt.Sprintf("The pod waits for the kubelet of nodes/%s to confirm that its containers stopped (grace period %ds). Node %s.", pod.Spec.NodeName, grace, n.state)
	// The API server sets a pod's deletionTimestamp to the end of its grace period.
	if pod.DeletionTimestamp != nil && n.ready && !n.leaseStale && x.now.Sub(pod.DeletionTimestamp.Time) > kubeletConfirmWindow {
		e.Pending += fmt.Sprintf(" Its grace period ended %s ago: the node's kubelet (or the agent in its place) runs but does not finish this pod's stop.", Age(x.now.Sub(pod.DeletionTimestamp.Time)))
		e.Remedies = []Remediation{{
			Code:    ReasonForceDeletePod,
			Summary: fmt.Sprintf("On nodes/%s, find why its kubelet does not finish the stop: its logs for this pod name a stop it cannot complete (a volume it cannot unmount, a container runtime that does not answer), which is fixed there; a kubelet or node agent that restarted while the pod was being deleted may have dropped it, and restarting it makes it read its pods again. Once the pod's containers no longer run on the node, force the deletion.", pod.Spec.NodeName),
			Command: x.kubectl(pod.Namespace, "delete", "pod", pod.Name, "--grace-period=0", "--force"),
			Cost:    forcedPodCost(pod),
			request: deleteRequest(podsResource, pod.Namespace, pod.Labels),
		}}
		return
	}
	e.Remedies = []Remediation{{
		Code:       ReasonForceDeletePod,
		Summary:    fmt.Sprintf("Only if the node is gone for good: force the deletion, so the API server stops waiting for the kubelet of nodes/%s.", pod.Spec.NodeName),
		Command:    x.kubectl(pod.Namespace, "delete", "pod", pod.Name, "--grace-period=0", "--force"),
		Cost:       forcedPodCost(pod),
		LastResort: true,
		request:    deleteRequest(podsResource, pod.Namespace, pod.Labels),
	}}
}

// kubeletConfirmWindow is how long after a pod's grace period ends a kubelet that runs on a
// Ready node may still take to confirm the stop before it is read as not finishing it: a kubelet
// confirms within seconds of the containers stopping, and kills them when the grace period ends.
const kubeletConfirmWindow = 5 * time.Minute

// forcedPodCost is what forcing a pod's deletion leaves: its containers may run on, and the
// claims it mounts may stay mounted or attached to the node.
func forcedPodCost(pod *corev1.Pod) string {
	cost := "the containers may still be running on that node; for a StatefulSet pod a second copy can start elsewhere while the first still writes"
	var claims []string
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			claims = append(claims, "persistentvolumeclaims/"+v.PersistentVolumeClaim.ClaimName)
		}
	}
	if len(claims) > 0 {
		cost += "; the volumes of " + strings.Join(claims, ", ") + " -n " + pod.Namespace + " may stay mounted or attached to that node, so a pod elsewhere may not attach them"
	}
	return cost
}
