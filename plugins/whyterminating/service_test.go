package whyterminating_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A Service changed from LoadBalancer to ClusterIP keeps service.kubernetes.io/load-balancer-cleanup
// when the service controller never processed the change (replays
// https://github.com/kubernetes/kubernetes/issues/78954). Its remover is the service controller,
// which Kubernetes defines; MetalLB's leftover ClusterRole metallb-system:controller, which may
// update Services, is not "the controller". A ClusterIP Service reporting no load balancer has
// no cloud load balancer to keep billing.
func TestLoadBalancerCleanupKnownRemover(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "lb-leftover")
	grantClusterRole(t, "metallb-system:controller", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "services/status"}, Verbs: []string{"get", "list", "watch", "update"}},
	}, "metallb-system", "controller", "")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ingress-nginx-controller", Namespace: "lb-leftover", Finalizers: []string{"service.kubernetes.io/load-balancer-cleanup"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"app.kubernetes.io/name": "ingress-nginx"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	if _, err := kc.Kube.CoreV1().Services("lb-leftover").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release(schema.GroupVersionResource{Version: "v1", Resource: "services"}, "lb-leftover", svc.Name)
	})
	if err := kc.Kube.CoreV1().Services("lb-leftover").Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "service", svc.Name, "-n", "lb-leftover")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"removed by: the cloud controller manager (service controller)",
		"controller: none found — no cloud controller manager runs as a workload here, and the Service has no load balancer to clean up",
		"last resort 1: Only if the controller is gone for good: remove finalizer service.kubernetes.io/load-balancer-cleanup by hand.",
		"cost: left behind: nothing known outside the cluster: the Service is of type ClusterIP and reports no load balancer",
	}, []string{"metallb", "keeps running (and billing)", "Reinstall"})
}
