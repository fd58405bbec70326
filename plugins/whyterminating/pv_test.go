package whyterminating_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A volume being deleted waits, through pv-protection, for the claim bound to it; that claim is
// itself Terminating and is explained in turn, with the reclaim policy that decides the data.
func TestPVProtection(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	core := kc.Kube.CoreV1()
	createNamespace(t, "pvtest")
	size := resource.MustParse("1Gi")
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-data"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: size}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain, StorageClassName: "manual",
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/pv-data"}},
			ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: "pvtest", Name: "data"},
		},
	}
	if _, err := core.PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sc := "manual"
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "pvtest", Finalizers: []string{holdFinalizer}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &sc, VolumeName: "pv-data",
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}},
	}
	if _, err := core.PersistentVolumeClaims("pvtest").Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = core.PersistentVolumeClaims("pvtest").Patch(ctx, "data", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	eventually(t, "the volume to be Bound", func(ctx context.Context) (bool, error) {
		cur, err := core.PersistentVolumes().Get(ctx, "pv-data", metav1.GetOptions{})
		return err == nil && cur.Status.Phase == corev1.VolumeBound, nil
	})
	if err := core.PersistentVolumeClaims("pvtest").Delete(ctx, "data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := core.PersistentVolumes().Delete(ctx, "pv-data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "pv", "pv-data")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"persistentvolumes/pv-data Terminating for",
		"finalizer kubernetes.io/pv-protection",
		"blocked by persistentvolumeclaims/data -n pvtest: is bound to the volume",
		"reclaim policy Retain",
		"persistentvolumeclaims/data -n pvtest Terminating for",
		"finalizer example.com/hold",
		"the data survives: volume persistentvolumes/pv-data (1Gi) has reclaim policy Retain",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
}
