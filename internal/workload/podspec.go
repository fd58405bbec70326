// Package workload knows the objects that run pods: where each kind keeps its pod spec, and
// whether a workload controller is healthy (kstatus, the rules Flux and kpt wait on). It reads
// no cluster; callers hand it the objects they read.
package workload

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// podSpecPaths are where each kind that runs pods keeps its pod spec: the pod itself, or the
// template its controller stamps pods from.
var podSpecPaths = map[schema.GroupKind][]string{
	{Kind: "Pod"}:                        {"spec"},
	{Kind: "ReplicationController"}:      {"spec", "template", "spec"},
	{Group: "apps", Kind: "Deployment"}:  {"spec", "template", "spec"},
	{Group: "apps", Kind: "StatefulSet"}: {"spec", "template", "spec"},
	{Group: "apps", Kind: "DaemonSet"}:   {"spec", "template", "spec"},
	{Group: "apps", Kind: "ReplicaSet"}:  {"spec", "template", "spec"},
	{Group: "batch", Kind: "Job"}:        {"spec", "template", "spec"},
	{Group: "batch", Kind: "CronJob"}:    {"spec", "jobTemplate", "spec", "template", "spec"},
}

// PodSpecPath is the field path of gk's pod spec, and whether gk is a kind this package knows
// to run pods.
func PodSpecPath(gk schema.GroupKind) ([]string, bool) {
	p, ok := podSpecPaths[gk]
	if !ok {
		return nil, false
	}
	return append([]string(nil), p...), true
}

// PodVolumes decodes the volumes of u's pod spec, and says whether u is a kind that runs pods.
// An entry that does not decode is an error, never "no mount".
func PodVolumes(u *unstructured.Unstructured) ([]corev1.Volume, bool, error) {
	p, ok := PodSpecPath(u.GroupVersionKind().GroupKind())
	if !ok {
		return nil, false, nil
	}
	raw, _, err := unstructured.NestedSlice(u.Object, append(p, "volumes")...)
	if err != nil {
		return nil, true, err
	}
	var spec corev1.PodSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"volumes": raw}, &spec); err != nil {
		return nil, true, err
	}
	return spec.Volumes, true, nil
}

// MountsClaim reports whether vols mount PersistentVolumeClaim claim.
func MountsClaim(vols []corev1.Volume, claim string) bool {
	for _, v := range vols {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			return true
		}
	}
	return false
}
