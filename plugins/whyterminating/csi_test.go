package whyterminating_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A PersistentVolume held by external-attacher/cinder-csi-openstack-org after the Cinder CSI
// driver was removed (replays https://github.com/kubernetes/cloud-provider-openstack/issues/944,
// "Status: Terminating (lasts 6d11h)"). The driver is named from the volume's spec.csi.driver
// with whether it is installed; Argo CD's application controller, whose ClusterRole allows
// everything, runs, but it is not the driver's sidecar and reading its logs is no fix.
func TestCSIFinalizerNamesDriver(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "argocd")
	grantClusterRole(t, "argocd-application-controller-all", []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}},
	}, "argocd", "argocd-application-controller", "")
	createWorkload(t, workloadSpec{ns: "argocd", name: "argocd-app-controller-live", sa: "argocd-application-controller", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("argocd").Delete(context.Background(), "argocd-app-controller-live", metav1.DeleteOptions{})
	})
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-31d6cb9c-1ebd-421b-a13f-b5abf23ea007", Finalizers: []string{"external-attacher/cinder-csi-openstack-org"},
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "cinder.csi.openstack.org"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              "cinder-az-nova",
			PersistentVolumeSource:        corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "cinder.csi.openstack.org", VolumeHandle: "b12c4cc9-9c60-44b8-81ea-f09dd2b70c7c"}},
		},
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release(schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, "", pv.Name)
	})
	if err := kc.Kube.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "persistentvolumes", pv.Name)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"removed by: the external-attacher sidecar of CSI driver cinder.csi.openstack.org",
		"type: CSI driver cinder.csi.openstack.org is not installed: csidrivers.storage.k8s.io/cinder.csi.openstack.org does not exist",
		"controller: none found — no workload with rights of its own on persistentvolumes runs a sidecar of cinder.csi.openstack.org",
		"fix 1: Reinstall CSI driver cinder.csi.openstack.org: its external-attacher sidecar then removes the finalizer itself.",
		"last resort 2: Only if the controller is gone for good: remove finalizer external-attacher/cinder-csi-openstack-org by hand.",
		"cost: left behind: the volume may stay attached to the node",
	}, []string{"argocd-app-controller-live", "read its logs"})
}
