package whyterminating_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// kyvernoFailClosed installs the fail-closed resource webhook Kyverno registers
// (validate.kyverno.svc-fail: every group, every resource and subresource, CREATE UPDATE DELETE,
// as quoted in https://github.com/kyverno/kyverno/issues/2343) with its service kyverno-svc
// left without a ready endpoint, as when Kyverno's pods are down
// (https://github.com/kyverno/kyverno/issues/7576: "I can't create/delete/update any
// resources"). Its namespaceSelector keeps the rest of the test cluster out of its reach.
func kyvernoFailClosed(t *testing.T, namespace string) {
	t.Helper()
	ctx := context.Background()
	ensureNamespace(t, "kyverno")
	// The Service selects the admission controller's pods (the chart's Deployment
	// kyverno-admission-controller); an earlier test may have left one with another selector.
	selector := map[string]string{"app.kubernetes.io/name": "kyverno-admission-controller"}
	svcs := kc.Kube.CoreV1().Services("kyverno")
	if cur, err := svcs.Get(ctx, "kyverno-svc", metav1.GetOptions{}); err == nil {
		cur.Spec.Selector = selector
		if _, err := svcs.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	} else {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kyverno-svc", Namespace: "kyverno"},
			Spec: corev1.ServiceSpec{Selector: selector, Ports: []corev1.ServicePort{{Port: 443}}}}
		if _, err := svcs.Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fail, none, path := admissionv1.Fail, admissionv1.SideEffectClassNoneOnDryRun, "/validate/fail"
	all := admissionv1.AllScopes
	cfg := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kyverno-resource-validating-webhook-cfg", Labels: map[string]string{"webhook.kyverno.io/managed-by": "kyverno"}},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "validate.kyverno.svc-fail", FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "kyverno", Name: "kyverno-svc", Path: &path}},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete},
				Rule: admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}, Scope: &all}}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": namespace}},
		}}}
	hooks := kc.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := hooks.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hooks.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })
}

// The forced deletion offered for a pod whose node has no kubelet is a DELETE, which a
// fail-closed webhook with no endpoint rejects as surely as it rejects a finalizer patch: the
// webhook's step comes first, and the command says it is refused until then.
func TestWebhookRejectsForcedDelete(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "wh-pods")
	createPodOn(t, "wh-pods", "api-7d9f", incident.NodeName, 30)
	if err := kc.Kube.CoreV1().Pods("wh-pods").Delete(ctx, "api-7d9f", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kyvernoFailClosed(t, "wh-pods")
	out, _, code := run(t, "pod", "api-7d9f", "-n", "wh-pods")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"fix 1: No Deployment, StatefulSet or DaemonSet runs pods that services/kyverno-svc -n kyverno selects, so the product behind validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg appears uninstalled: Delete",
		"$ kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " delete validatingwebhookconfigurations.admissionregistration.k8s.io kyverno-resource-validating-webhook-cfg",
		"last resort 2: Only if the node is gone for good: force the deletion",
		"rejected until the step above is done: validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg (webhook validate.kyverno.svc-fail) would refuse this command",
		"-n wh-pods delete pod api-7d9f --grace-period=0 --force",
	}, nil)
	if i, j := strings.Index(out, "fix 1: No Deployment"), strings.Index(out, "--grace-period=0 --force"); i < 0 || j < i {
		t.Errorf("the webhook's step does not come before the forced delete\n%s", out)
	}
}

// Kyverno's admission controller scaled to 0 (https://github.com/kyverno/kyverno/issues/2962:
// the webhook fails every request while Kyverno's pods are down): the webhook's Service is
// followed to the Deployment behind it, and scaling it up is the fix; deleting the webhook
// configuration is only the last resort for a Kyverno removed for good.
func TestWebhookBackendScaledToZero(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createNamespace(t, "wh-scaled")
	createPodOn(t, "wh-scaled", "web-5c8d", incident.NodeName, 30)
	if err := kc.Kube.CoreV1().Pods("wh-scaled").Delete(ctx, "web-5c8d", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kyvernoFailClosed(t, "wh-scaled")
	createWorkload(t, workloadSpec{ns: "kyverno", name: "kyverno-admission-controller", sa: "kyverno-admission-controller", replicas: 0})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("kyverno").Delete(context.Background(), "kyverno-admission-controller", metav1.DeleteOptions{})
	})
	out, _, code := run(t, "pod", "web-5c8d", "-n", "wh-scaled")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"fix 1: Scale deployments.apps/kyverno-admission-controller -n kyverno up: it runs the pods behind services/kyverno-svc -n kyverno and is scaled to 0",
		"$ kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " -n kyverno scale deployments.apps kyverno-admission-controller --replicas=1",
		"last resort 2: Only if that product was removed for good: Delete validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg",
		"last resort 3: Only if the node is gone for good: force the deletion",
	}, []string{"appears uninstalled"})
}

// The namespace finalize bypass is an UPDATE of namespaces/finalize; Kyverno's "*/*" rule
// covers that subresource too, so the bypass is named as refused until the webhook is handled.
func TestWebhookRejectsNamespaceFinalize(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wh-origin"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"openshift.io/origin"}}}
	if _, err := kc.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cur, err := kc.Kube.CoreV1().Namespaces().Get(context.Background(), "wh-origin", metav1.GetOptions{}); err == nil {
			cur.Spec.Finalizers = nil
			_, _ = kc.Kube.CoreV1().Namespaces().Finalize(context.Background(), cur, metav1.UpdateOptions{})
		}
	})
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "wh-origin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace controller to remove its own spec finalizer", func(ctx context.Context) (bool, error) {
		cur, err := kc.Kube.CoreV1().Namespaces().Get(ctx, "wh-origin", metav1.GetOptions{})
		return err == nil && !slices.Contains(cur.Spec.Finalizers, corev1.FinalizerKubernetes), nil
	})
	kyvernoFailClosed(t, "wh-origin")
	out, _, code := run(t, "namespace", "wh-origin")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"appears uninstalled: Delete validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg",
		"last resort 2: Only if the controller behind openshift.io/origin is gone for good",
		"rejected until the step above is done: validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg (webhook validate.kyverno.svc-fail) would refuse this command",
	}, nil)
}
