package whyterminating_test

import (
	"context"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubeBlocks serves its own fail-closed validating webhook from the operator's Deployment
// (Service kubeblocks in kb-system); with the operator's pods not ready, "failed calling webhook
// ... no endpoints available for service kubeblocks" refuses every UPDATE of its types, its own
// included (https://github.com/apecloud/kubeblocks/issues/1795). A Cluster keeps
// cluster.kubeblocks.io/finalizer: bringing the operator back is the fix, after which it answers
// its webhook and removes the finalizer itself; a strip is not offered (the API server refuses
// the patch until then anyway, and the installed operator finishes after).
func TestNoStripBehindTheProductsOwnWebhook(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "kb-system")
	ensureNamespace(t, "kb-demo")
	gvr := applyCRD(t, crdSpec{group: "apps.kubeblocks.io", kind: "Cluster", plural: "clusters", namespaced: true, versions: []string{"v1alpha1"}, status: true})
	grantClusterRole(t, "kubeblocks", []rbacv1.PolicyRule{
		{APIGroups: []string{"apps.kubeblocks.io"}, Resources: []string{"clusters", "clusters/status", "clusters/finalizers"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
	}, "kb-system", "kubeblocks", "")
	createWorkload(t, workloadSpec{ns: "kb-system", name: "kubeblocks", sa: "kubeblocks", replicas: 1})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("kb-system").Delete(context.Background(), "kubeblocks", metav1.DeleteOptions{})
	})
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kubeblocks", Namespace: "kb-system"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": "kubeblocks"}, Ports: []corev1.ServicePort{{Port: 9443}}}}
	if _, err := kc.Kube.CoreV1().Services("kb-system").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.CoreV1().Services("kb-system").Delete(context.Background(), "kubeblocks", metav1.DeleteOptions{})
	})
	createStuck(t, gvr, "Cluster", "kb-demo", "mycluster", "cluster.kubeblocks.io/finalizer", nil, map[string]any{"clusterDefinitionRef": "postgresql"})
	fail, none, path := admissionv1.Fail, admissionv1.SideEffectClassNone, "/validate-apps-kubeblocks-io-v1alpha1-cluster"
	cfg := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kubeblocks-validating-webhook-configuration"},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "vcluster.kb.io", FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "kb-system", Name: "kubeblocks", Path: &path}},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
				Rule: admissionv1.Rule{APIGroups: []string{"apps.kubeblocks.io"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"clusters"}}}},
		}}}
	hooks := kc.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := hooks.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hooks.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })

	out, _, code := run(t, "clusters.apps.kubeblocks.io", "mycluster", "-n", "kb-demo")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"blocked by validatingwebhookconfigurations.admissionregistration.k8s.io/kubeblocks-validating-webhook-configuration: rejects UPDATE of clusters.apps.kubeblocks.io",
		"fix 1: Bring deployments.apps/kubeblocks -n kb-system back: it runs the pods behind services/kubeblocks -n kb-system",
		"Do not remove cluster.kubeblocks.io/finalizer by hand: deployments.apps/kubeblocks -n kb-system, behind validatingwebhookconfigurations.admissionregistration.k8s.io/kubeblocks-validating-webhook-configuration, is a remover of this finalizer",
	}, []string{"remove finalizer cluster.kubeblocks.io/finalizer by hand.", `"op":"remove","path":"/metadata/finalizers/0"`})
}
