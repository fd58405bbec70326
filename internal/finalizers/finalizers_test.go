package finalizers

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{-time.Second, "0s"}, {45 * time.Second, "45s"}, {12 * time.Minute, "12m"}, {3*time.Hour + 12*time.Minute, "3h12m"}, {5 * time.Hour, "5h"}, {11 * 24 * time.Hour, "11d"}} {
		if got := Age(tc.d); got != tc.want {
			t.Errorf("Age(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestDomainOf(t *testing.T) {
	for _, tc := range []struct{ in, domain, stem string }{
		{"velero.io/pod-volume", "velero.io", "velero"},
		{"restores.velero.io/external-resources-finalizer", "restores.velero.io", "velero"},
		{"finalizers.fluxcd.io", "finalizers.fluxcd.io", "fluxcd"},
		{"longhorn.io", "longhorn.io", "longhorn"},
		{"custom", "custom", "custom"},
	} {
		if d, s := domainOf(tc.in); d != tc.domain || s != tc.stem {
			t.Errorf("domainOf(%q) = %q, %q; want %q, %q", tc.in, d, s, tc.domain, tc.stem)
		}
	}
}

func TestLookupKnown(t *testing.T) {
	for _, tc := range []struct{ finalizer, kind, removedBy string }{
		{"finalizers.fluxcd.io", "Kustomization", "Flux kustomize-controller"},
		{"finalizers.fluxcd.io", "HelmRelease", "Flux helm-controller"},
		{"batch.kubernetes.io/job-tracking", "Pod", "kube-controller-manager (job controller)"},
		{"external-attacher/driver.longhorn.io", "VolumeAttachment", "the external-attacher sidecar of CSI driver driver.longhorn.io"},
		{"snapshot.storage.kubernetes.io/volumesnapshot-bound-protection", "VolumeSnapshot", "the CSI snapshot-controller"},
		{"cnpg.io/checkEmptyWalArchive", "Cluster", "the CloudNativePG operator"},
		{"velero.io/pod-volume-finalizer", "Backup", "Velero"},
	} {
		k, ok := lookupKnown(tc.finalizer, tc.kind)
		if !ok || k.removedBy != tc.removedBy {
			t.Errorf("lookupKnown(%q) = %q, %v; want %q", tc.finalizer, k.removedBy, ok, tc.removedBy)
		}
	}
	if _, ok := lookupKnown("example.com/hold", "ConfigMap"); ok {
		t.Error("an unknown finalizer was treated as known")
	}
}

func TestStripPatchTestsTheValue(t *testing.T) {
	got := stripPatch([]string{"a.io/x", "velero.io/y"}, "velero.io/y")
	want := `[{"op":"test","path":"/metadata/finalizers/1","value":"velero.io/y"},{"op":"remove","path":"/metadata/finalizers/1"}]`
	if got != want {
		t.Fatalf("stripPatch = %s, want %s", got, want)
	}
}

// usesClaim follows the pvc-protection controller: only scheduled pods count, through a
// claim volume or through the generic ephemeral volume the claim was created for.
func TestUsesClaim(t *testing.T) {
	claim := &metav1.ObjectMeta{Name: "web-0-data", OwnerReferences: []metav1.OwnerReference{{UID: "pod-uid"}}}
	pvcVol := corev1.Volume{Name: "plugins-dir", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "headlamp"}}}
	ephVol := corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
	pod := func(name, node string, uid string, vols ...corev1.Volume) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: typesUID(uid)}, Spec: corev1.PodSpec{NodeName: node, Volumes: vols}}
	}
	cases := []struct {
		name   string
		pod    *corev1.Pod
		claim  string
		obj    metav1.Object
		volume string
		uses   bool
	}{
		{"scheduled pod mounting the claim", pod("headlamp-x", "worker-1", "u1", pvcVol), "headlamp", &metav1.ObjectMeta{Name: "headlamp"}, "plugins-dir", true},
		{"unscheduled pod does not hold it", pod("headlamp-x", "", "u1", pvcVol), "headlamp", &metav1.ObjectMeta{Name: "headlamp"}, "", false},
		{"other claim", pod("headlamp-x", "worker-1", "u1", pvcVol), "other", &metav1.ObjectMeta{Name: "other"}, "", false},
		{"ephemeral claim owned by the pod", pod("web-0", "worker-1", "pod-uid", ephVol), "web-0-data", claim, "data", true},
		{"ephemeral name match, other owner", pod("web-0", "worker-1", "another", ephVol), "web-0-data", claim, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vol, ok := usesClaim(tc.pod, tc.claim, tc.obj)
			if ok != tc.uses || vol != tc.volume {
				t.Fatalf("usesClaim = %q, %v; want %q, %v", vol, ok, tc.volume, tc.uses)
			}
		})
	}
}

func TestReclaimCost(t *testing.T) {
	pv := func(p corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}, Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: p}}
	}
	if got := reclaimCost(pv(corev1.PersistentVolumeReclaimDelete), "256Mi"); got != "the 256Mi of data in volume persistentvolumes/pv-1 is lost: its reclaim policy is Delete. Copy out what you need first" {
		t.Errorf("Delete: %s", got)
	}
	if got := reclaimCost(pv(corev1.PersistentVolumeReclaimRetain), "1Gi"); got != "the data survives: volume persistentvolumes/pv-1 (1Gi) has reclaim policy Retain and is kept as Released; rebind or delete it by hand" {
		t.Errorf("Retain: %s", got)
	}
}

func typesUID(s string) types.UID { return types.UID(s) }
