package execute

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/workload"
)

// defaultPodGoneTimeout bounds the wait for an evicted pod to terminate before stage 4 may go on.
const defaultPodGoneTimeout = 2 * time.Minute

// EvictDrainedPod is stage 2's live step: it evicts a pod that still mounts the claim although
// the drain is done — git declares no mount any more and the pod's controller would recreate
// it without one (a StatefulSet or DaemonSet with updateStrategy OnDelete keeps its old pods).
// Right before acting it re-reads the pod and its controller; it refuses a pod no controller
// owns (nothing drained it: it is someone's), a controller that would recreate the mount, and
// one whose template it cannot read. It evicts through the Eviction API, so the pod's
// PodDisruptionBudget decides, bound to the pod's version (see Bound: the UID and
// resourceVersion reviewed, or else those it re-read); a budget that refuses stops the step,
// never forced, and a pod at another version is a *ChangedError. It then waits until the pod is gone, since the claim stays in use while
// the pod terminates. The detail it returns says why nothing was done, if so.
func (e Executor) EvictDrainedPod(ctx context.Context, rm *retire.Removal, podName string, bound Bound) (string, error) {
	if len(rm.DeclaredConsumers) > 0 {
		names := make([]string, len(rm.DeclaredConsumers))
		for i, c := range rm.DeclaredConsumers {
			names[i] = c.String()
		}
		return "", fmt.Errorf("the candidate still mounts %s in %s: drain it in git first", rm.Object, strings.Join(names, ", "))
	}
	ns := rm.Object.Namespace
	pod, err := e.Clients.Kube.CoreV1().Pods(ns).Get(ctx, podName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "already gone", nil
	}
	if err != nil {
		return "", fmt.Errorf("re-reading pod %s/%s: %w", ns, podName, err)
	}
	ref := retire.Ref{Kind: "Pod", Namespace: ns, Name: podName}
	pre, err := preconditions(ref, bound, pod)
	if err != nil {
		return "", err
	}
	if !workload.MountsClaim(pod.Spec.Volumes, rm.Object.Name) {
		return "it no longer mounts the claim", nil
	}
	if pod.DeletionTimestamp == nil {
		owner := metav1.GetControllerOf(pod)
		if owner == nil {
			return "", fmt.Errorf("pod %s/%s mounts %s and no controller owns it: nothing in git drained it; delete it yourself if it is expendable", ns, podName, rm.Object)
		}
		if err := e.ownerDrained(ctx, ns, owner, rm.Object.Name); err != nil {
			return "", fmt.Errorf("pod %s/%s: %w", ns, podName, err)
		}
		gone, err := e.evict(ctx, pod, pre, bound)
		if err != nil {
			return "", err
		}
		if gone {
			return "already gone", nil
		}
	}
	return "", e.waitGone(ctx, ns, podName, pod.UID)
}

// waitGone waits until pod ns/name with uid no longer exists.
func (e Executor) waitGone(ctx context.Context, ns, name string, uid types.UID) error {
	timeout := e.PodGoneTimeout
	if timeout == 0 {
		timeout = defaultPodGoneTimeout
	}
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		p, err := e.Clients.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return p.UID != uid, nil
	})
	if err != nil {
		return fmt.Errorf("pod %s/%s is still terminating after %s, so the claim is still in use: run again once it is gone (%s): %w",
			ns, name, timeout, e.Planner.Kubectl(ns, "get", "pod", name), err)
	}
	return nil
}

// ownerDrained re-reads the pod's controller and checks that what it would create next does not
// mount the claim.
func (e Executor) ownerDrained(ctx context.Context, ns string, owner *metav1.OwnerReference, claim string) error {
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return fmt.Errorf("its controller %s %s has an unreadable apiVersion: %w", owner.Kind, owner.Name, err)
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: owner.Kind}
	ref := gk.Kind
	if gk.Group != "" {
		ref += "." + gk.Group
	}
	if _, known := workload.PodSpecPath(gk); !known {
		return fmt.Errorf("its controller is %s %s, whose pod template safe-retire cannot read: delete the pod yourself once you know it comes back without the mount", ref, owner.Name)
	}
	catalog, err := kinds.Discover(e.Clients.Discovery)
	if err != nil {
		return fmt.Errorf("discovering the API: %w", err)
	}
	res, ok := catalog.ForGroupKind(gk)
	if !ok {
		return fmt.Errorf("the API does not serve its controller's kind %s", ref)
	}
	obj, err := e.Clients.Dynamic.Resource(res.GVR()).Namespace(ns).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-reading its controller %s %s: %w", ref, owner.Name, err)
	}
	if obj.GetUID() != owner.UID {
		return fmt.Errorf("its controller %s %s was replaced since the pod was created", ref, owner.Name)
	}
	vols, _, err := workload.PodVolumes(obj)
	if err != nil {
		return fmt.Errorf("reading the pod template of its controller %s %s: %w", ref, owner.Name, err)
	}
	if workload.MountsClaim(vols, claim) {
		what := "its controller"
		if owner.Kind == "ReplicaSet" && len(obj.GetOwnerReferences()) > 0 {
			what = "its controller, an old revision of " + obj.GetOwnerReferences()[0].Kind + " " + obj.GetOwnerReferences()[0].Name + ","
		}
		return fmt.Errorf("%s %s %s still mounts claim %s in its pod template and would recreate the pod with it: wait for Flux to apply the drained revision (and for its rollout)", what, ref, owner.Name, claim)
	}
	return nil
}
