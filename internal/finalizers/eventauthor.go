package finalizers

import (
	"slices"
	"strings"
)

// kubernetesSources are the components of Kubernetes itself that report events on the objects
// they schedule, run or manage (the scheduler, the kubelet, kube-controller-manager's and the
// cloud controller manager's controllers). A fact of Kubernetes, not of any product: none of
// them removes a product's finalizer, so their events are facts about the object, never a
// remover's own failure.
var kubernetesSources = []string{
	"default-scheduler", "kubelet", "kube-proxy", "attachdetach-controller", "persistentvolume-controller",
	"persistentvolume-expander", "deployment-controller", "replicaset-controller", "statefulset-controller",
	"daemonset-controller", "job-controller", "cronjob-controller", "endpoint-controller",
	"endpointslice-controller", "node-controller", "taint-eviction-controller", "namespace-controller",
	"service-controller", "horizontal-pod-autoscaler", "disruption-controller", "pod-garbage-collector",
}

// eventByOther says who else reported an event whose source is source, when that is not the
// remover: one of Kubernetes' own components (kubernetesSources, or a source of the form
// `kubernetes.io/...`), or a workload of the cluster other than the remover that answers to it
// (answersTo: its name, labels, images, containers or commands). Empty when the source may be
// the remover's: it answers to the remover, to no workload at all, or is not given.
func eventByOther(source string, remover ObjectRef, ws []workload) string {
	if source == "" {
		return ""
	}
	for _, w := range ws {
		if w.ref == remover {
			if _, ok := answersTo(source, w); ok {
				return ""
			}
		}
	}
	if slices.Contains(kubernetesSources, strings.ToLower(source)) || strings.HasPrefix(source, "kubernetes.io/") {
		return source + ", a component of Kubernetes itself"
	}
	for _, w := range ws {
		if w.ref == remover {
			continue
		}
		if how, ok := answersTo(source, w); ok {
			return source + ", which " + w.ref.String() + " answers to (" + how + ")"
		}
	}
	return ""
}
