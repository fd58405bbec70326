package workload

import (
	"fmt"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Health is a workload controller's state: kstatus's verdict and message, and the replica
// counts they rest on.
type Health struct {
	// Status is kstatus's: Current, InProgress, Failed (a stalled rollout), Terminating, Unknown.
	Status  status.Status `json:"status"`
	Message string        `json:"message"`
	// Ready and Wanted are the ready and desired replicas (for a DaemonSet, the ready and
	// desired scheduled pods).
	Ready  int32 `json:"ready"`
	Wanted int32 `json:"wanted"`
}

// Running reports whether the controller has pods serving: some replica wanted and ready, and
// a rollout that is done or under way, not stalled or being deleted. kstatus alone calls a
// workload scaled to 0, and a StatefulSet with updateStrategy OnDelete, Current whatever runs;
// a rollout in progress still serves from its ready replicas.
func (h Health) Running() bool {
	return h.Wanted > 0 && h.Ready > 0 && (h.Status == status.CurrentStatus || h.Status == status.InProgressStatus)
}

// Why says in a few words why the controller is not Running, or how it runs.
func (h Health) Why() string {
	switch {
	case h.Wanted == 0:
		return "it is scaled to 0: no replica runs"
	case h.Ready == 0:
		return fmt.Sprintf("it has no ready replica (%s: %s)", h.Status, h.Message)
	}
	return fmt.Sprintf("%s: %s", h.Status, h.Message)
}

// Of computes the health of a Deployment, StatefulSet or DaemonSet, typed (as client-go lists
// them, without apiVersion and kind) or unstructured.
func Of(obj runtime.Object) (Health, error) {
	u, err := toUnstructured(obj)
	if err != nil {
		return Health{}, err
	}
	res, err := status.Compute(u)
	if err != nil {
		return Health{}, fmt.Errorf("computing the status of %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	h := Health{Status: res.Status, Message: res.Message}
	o := u.Object
	if u.GetKind() == "DaemonSet" {
		h.Wanted, h.Ready = field(o, 0, "status", "desiredNumberScheduled"), field(o, 0, "status", "numberReady")
	} else {
		h.Wanted, h.Ready = field(o, 1, "spec", "replicas"), field(o, 0, "status", "readyReplicas")
	}
	return h, nil
}

func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	var kind string
	switch obj.(type) {
	case *appsv1.Deployment:
		kind = "Deployment"
	case *appsv1.StatefulSet:
		kind = "StatefulSet"
	case *appsv1.DaemonSet:
		kind = "DaemonSet"
	default:
		return nil, fmt.Errorf("workload health: %T is not a Deployment, StatefulSet or DaemonSet", obj)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("workload health: %w", err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind(kind))
	return u, nil
}

// field reads an integer field, def when absent or not an integer.
func field(o map[string]any, def int32, path ...string) int32 {
	v, ok, err := unstructured.NestedInt64(o, path...)
	if !ok || err != nil {
		return def
	}
	return int32(v)
}
