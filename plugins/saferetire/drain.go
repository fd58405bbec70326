package saferetire

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/retire"
)

// podGoneTimeout bounds the wait for a deleted pod to terminate before stage 4 may go on.
const podGoneTimeout = 2 * time.Minute

// templateVolumes is where each kind that controls pods keeps its pod template's volumes.
var templateVolumes = map[string][]string{
	"ReplicaSet.apps":       {"spec", "template", "spec", "volumes"},
	"StatefulSet.apps":      {"spec", "template", "spec", "volumes"},
	"DaemonSet.apps":        {"spec", "template", "spec", "volumes"},
	"Job.batch":             {"spec", "template", "spec", "volumes"},
	"ReplicationController": {"spec", "template", "spec", "volumes"},
}

// deleteDrainedPod is stage 2's live step: it deletes a pod that still mounts the claim although
// the drain is done — git declares no mount any more and the pod's controller would recreate
// it without one (a StatefulSet or DaemonSet with updateStrategy OnDelete keeps its old pods).
// Right before acting it re-reads the pod and its controller; it refuses a pod no controller
// owns (nothing drained it: it is someone's), a controller that would recreate the mount, and
// one whose template it cannot read. It deletes pinned to the UID it re-read and waits until
// the pod is gone, since the claim stays in use while the pod terminates.
func (o *SafeRetireOptions) deleteDrainedPod(ctx context.Context, rm *retire.Removal, podName string) (string, error) {
	if len(rm.DeclaredConsumers) > 0 {
		names := make([]string, len(rm.DeclaredConsumers))
		for i, c := range rm.DeclaredConsumers {
			names[i] = c.String()
		}
		return "", fmt.Errorf("the candidate still mounts %s in %s: drain it in git first", rm.Object, strings.Join(names, ", "))
	}
	c := o.clients
	ns := rm.Object.Namespace
	pod, err := c.Kube.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "already gone", nil
	}
	if err != nil {
		return "", fmt.Errorf("re-reading pod %s/%s: %w", ns, podName, err)
	}
	if !mountsClaim(pod.Spec.Volumes, rm.Object.Name) {
		return "it no longer mounts the claim", nil
	}
	if pod.DeletionTimestamp == nil {
		owner := metav1.GetControllerOf(pod)
		if owner == nil {
			return "", fmt.Errorf("pod %s/%s mounts %s and no controller owns it: nothing in git drained it; delete it yourself if it is expendable", ns, podName, rm.Object)
		}
		if err := o.ownerDrained(ctx, ns, owner, rm.Object.Name); err != nil {
			return "", fmt.Errorf("pod %s/%s: %w", ns, podName, err)
		}
		uid := pod.UID
		err = c.Kube.CoreV1().Pods(ns).Delete(ctx, podName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		switch {
		case apierrors.IsNotFound(err):
			return "already gone", nil
		case apierrors.IsConflict(err):
			return "", fmt.Errorf("pod %s/%s was replaced since it was checked: %w", ns, podName, err)
		case err != nil:
			return "", fmt.Errorf("deleting pod %s/%s: %w", ns, podName, err)
		}
	}
	uid := pod.UID
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, podGoneTimeout, true, func(ctx context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return p.UID != uid, nil
	})
	if err != nil {
		return "", fmt.Errorf("pod %s/%s is still terminating after %s, so the claim is still in use: run again once it is gone (%s): %w",
			ns, podName, podGoneTimeout, o.target.Command("-n", ns, "get", "pod", podName), err)
	}
	return "", nil
}

// ownerDrained re-reads the pod's controller and checks that what it would create next does not
// mount the claim.
func (o *SafeRetireOptions) ownerDrained(ctx context.Context, ns string, owner *metav1.OwnerReference, claim string) error {
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return fmt.Errorf("its controller %s %s has an unreadable apiVersion: %w", owner.Kind, owner.Name, err)
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: owner.Kind}
	ref := gk.Kind
	if gk.Group != "" {
		ref += "." + gk.Group
	}
	path, known := templateVolumes[ref]
	if !known {
		return fmt.Errorf("its controller is %s %s, whose pod template safe-retire cannot read: delete the pod yourself once you know it comes back without the mount", ref, owner.Name)
	}
	catalog, err := kinds.Discover(o.clients.Discovery)
	if err != nil {
		return fmt.Errorf("discovering the API: %w", err)
	}
	res, ok := catalog.ForGroupKind(gk)
	if !ok {
		return fmt.Errorf("the API does not serve its controller's kind %s", ref)
	}
	obj, err := o.clients.Dynamic.Resource(res.GVR()).Namespace(ns).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-reading its controller %s %s: %w", ref, owner.Name, err)
	}
	if obj.GetUID() != owner.UID {
		return fmt.Errorf("its controller %s %s was replaced since the pod was created", ref, owner.Name)
	}
	raw, _, _ := unstructured.NestedSlice(obj.Object, path...)
	var template corev1.PodSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"volumes": raw}, &template); err != nil {
		return fmt.Errorf("reading the pod template of its controller %s %s: %w", ref, owner.Name, err)
	}
	if mountsClaim(template.Volumes, claim) {
		what := "its controller"
		if owner.Kind == "ReplicaSet" && len(obj.GetOwnerReferences()) > 0 {
			what = "its controller, an old revision of " + obj.GetOwnerReferences()[0].Kind + " " + obj.GetOwnerReferences()[0].Name + ","
		}
		return fmt.Errorf("%s %s %s still mounts claim %s in its pod template and would recreate the pod with it: wait for Flux to apply the drained revision (and for its rollout)", what, ref, owner.Name, claim)
	}
	return nil
}

func mountsClaim(vols []corev1.Volume, claim string) bool {
	for _, v := range vols {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			return true
		}
	}
	return false
}
