package workload

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPodVolumes(t *testing.T) {
	mount := []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": "data"}}}
	for _, tc := range []struct {
		name, apiVersion, kind string
		spec                   map[string]any
		known, mounts, fails   bool
	}{
		{"statefulset template", "apps/v1", "StatefulSet", map[string]any{"template": map[string]any{"spec": map[string]any{"volumes": mount}}}, true, true, false},
		{"cronjob job template", "batch/v1", "CronJob", map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"volumes": mount}}}}}, true, true, false},
		{"pod", "v1", "Pod", map[string]any{"volumes": mount}, true, true, false},
		{"replicationcontroller without volumes", "v1", "ReplicationController", map[string]any{}, true, false, false},
		{"a Deployment of another group", "example.com/v1", "Deployment", map[string]any{"template": map[string]any{"spec": map[string]any{"volumes": mount}}}, false, false, false},
		{"undecodable volumes", "apps/v1", "DaemonSet", map[string]any{"template": map[string]any{"spec": map[string]any{"volumes": []any{"data"}}}}, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": tc.apiVersion, "kind": tc.kind, "spec": tc.spec}}
			vols, known, err := PodVolumes(u)
			if known != tc.known || (err != nil) != tc.fails || MountsClaim(vols, "data") != tc.mounts {
				t.Errorf("known=%v err=%v mounts=%v, want known=%v fails=%v mounts=%v", known, err, MountsClaim(vols, "data"), tc.known, tc.fails, tc.mounts)
			}
		})
	}
}
