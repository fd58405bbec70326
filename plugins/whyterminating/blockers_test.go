package whyterminating_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/testsupport/golden"
)

// waitCondition waits until the namespace controller sets condition typ True on ns.
func waitCondition(t *testing.T, ns string, typ corev1.NamespaceConditionType, contains string) {
	t.Helper()
	eventually(t, "namespace "+ns+" condition "+string(typ), func(ctx context.Context) (bool, error) {
		cur, err := kc.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range cur.Status.Conditions {
			if c.Type == typ && c.Status == corev1.ConditionTrue && strings.Contains(c.Message, contains) {
				return true, nil
			}
		}
		return false, nil
	})
}

// A validating webhook left behind by an uninstalled policy engine, failurePolicy Fail, whose
// service has no endpoints: the API server really rejects the namespace controller's DELETEs,
// so the count never falls (replays https://github.com/open-policy-agent/gatekeeper/issues/2423
// and https://github.com/thyarles/knsk/issues/28). The configuration is named as the blocker.
func TestAdmissionWebhookBlocksNamespace(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ensureNamespace(t, "kyverno")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kyverno-svc", Namespace: "kyverno"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": "kyverno"}, Ports: []corev1.ServicePort{{Port: 443}}}}
	if _, err := kc.Kube.CoreV1().Services("kyverno").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fail, none, path := admissionv1.Fail, admissionv1.SideEffectClassNone, "/validate"
	cfg := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kyverno-resource-validating-webhook-cfg"},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name: "validate.kyverno.svc-fail", FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig:      admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "kyverno", Name: "kyverno-svc", Path: &path}},
			Rules:             []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Delete}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "wh-blocked"}},
		}}}
	hooks := kc.Kube.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := hooks.Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hooks.Delete(context.Background(), cfg.Name, metav1.DeleteOptions{}) })
	createNamespace(t, "wh-blocked")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app-settings", Namespace: "wh-blocked"}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("wh-blocked").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube-controller-manager's root-ca-cert-publisher writes kube-root-ca.crt into every new
	// namespace, but not into one already terminating; wait for it so that the remaining count
	// does not depend on which of the two came first.
	eventually(t, "kube-root-ca.crt in wh-blocked", func(ctx context.Context) (bool, error) {
		_, err := kc.Kube.CoreV1().ConfigMaps("wh-blocked").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil, nil
	})
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "wh-blocked", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, "wh-blocked", corev1.NamespaceDeletionContentFailure, "kyverno")
	out, _, code := run(t, "namespace", "wh-blocked")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"blocked by configmaps -n wh-blocked:",
		"blocked by validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg: rejects DELETE of configmaps (webhook validate.kyverno.svc-fail, failurePolicy Fail): services/kyverno-svc -n kyverno has no ready endpoint",
		"fix 1: No Deployment, StatefulSet or DaemonSet runs pods that services/kyverno-svc -n kyverno selects, so the product behind validatingwebhookconfigurations.admissionregistration.k8s.io/kyverno-resource-validating-webhook-cfg appears uninstalled",
		"$ kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " delete validatingwebhookconfigurations.admissionregistration.k8s.io kyverno-resource-validating-webhook-cfg",
		"cost: until the configuration is re-created, the policy it enforces is not applied",
	}, []string{"needs no help unless the count stops falling"})
	// How the API server's call to the endpoint-less service fails depends on the machine's
	// resolver and proxies (no such host, refused, a foreign certificate); the golden keeps the rest.
	goldens.Assert(t, "admission-webhook-blocks-namespace.txt", out,
		golden.Regexp(`failed to call webhook: [^\n]*`, "failed to call webhook: CALL-ERROR"))
}

// A CRD whose conversion webhook's service is gone: the namespace controller cannot list the
// type's objects stored at another version, and the namespace stays Terminating (replays
// https://github.com/kubernetes/kubernetes/issues/118357). The conditions are linked to the
// concrete CRD, its webhook and service.
func TestConversionWebhookBlocksNamespace(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	path, port := "/crdconvert", int32(9443)
	conv := &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
		ConversionReviewVersions: []string{"v1"},
		ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "crd-webhook", Name: "e2e-test-crd-conversion-webhook", Path: &path, Port: &port}},
	}}
	gvr := applyCRD(t, crdSpec{group: "stable.example.com", kind: "CronTab", plural: "crontabs", namespaced: true, versions: []string{"v1", "v2"}, conversion: conv})
	t.Cleanup(func() {
		_, _ = kc.Dynamic.Resource(crdGVR).Patch(context.Background(), "crontabs.stable.example.com", "application/merge-patch+json", []byte(`{"spec":{"conversion":{"strategy":"None","webhook":null}}}`), metav1.PatchOptions{})
	})
	createNamespace(t, "crd-webhook")
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "nightly"}}}
	if _, err := kc.Dynamic.Resource(gvr).Namespace("crd-webhook").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "crd-webhook", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, "crd-webhook", corev1.NamespaceDeletionContentFailure, "conversion webhook")
	out, _, code := run(t, "namespace", "crd-webhook")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"condition NamespaceDeletionContentFailure:",
		"blocked by customresourcedefinitions.apiextensions.k8s.io/crontabs.stable.example.com: its conversion webhook cannot answer (services/e2e-test-crd-conversion-webhook -n crd-webhook does not exist), so the namespace controller cannot list or delete crontabs.stable.example.com",
		"fix 1: services/e2e-test-crd-conversion-webhook -n crd-webhook does not exist, so the product behind customresourcedefinitions.apiextensions.k8s.io/crontabs.stable.example.com appears uninstalled: Set the conversion strategy",
		"last resort 2:",
	}, []string{"no blocker found", "INCOMPLETE"})
}

// A namespace spec finalizer other than `kubernetes`, left behind by OpenShift's removed
// origin controller (replays https://github.com/kubernetes/kubernetes/issues/19317): it is
// named, nothing may update namespaces/finalize to remove it, and the bypass removes only it.
func TestNamespaceSpecFinalizerLeftBehind(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "anotherproject"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes", "openshift.io/origin"}}}
	if _, err := kc.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cur, err := kc.Kube.CoreV1().Namespaces().Get(context.Background(), "anotherproject", metav1.GetOptions{}); err == nil {
			cur.Spec.Finalizers = nil
			_, _ = kc.Kube.CoreV1().Namespaces().Finalize(context.Background(), cur, metav1.UpdateOptions{})
		}
	})
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "anotherproject", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace controller to remove its own spec finalizer", func(ctx context.Context) (bool, error) {
		cur, err := kc.Kube.CoreV1().Namespaces().Get(ctx, "anotherproject", metav1.GetOptions{})
		return err == nil && !slices.Contains(cur.Spec.Finalizers, corev1.FinalizerKubernetes), nil
	})
	out, _, code := run(t, "namespace", "anotherproject")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"finalizer openshift.io/origin",
		"removed by: the controller that registered this spec finalizer, through the namespaces/finalize subresource",
		"controller: none found — no service account outside Kubernetes' own controllers may update namespaces/finalize",
		"last resort 1: Only if the controller behind openshift.io/origin is gone for good",
		`jq '.spec.finalizers -= ["openshift.io/origin"]'`,
	}, []string{"finalizer kubernetes\n", "no blocker found"})
	goldens.Assert(t, "namespace-spec-finalizer-left-behind.txt", out)
}

// cert-manager uninstalled before an ACME Challenge was solved (replays
// https://github.com/cert-manager/cert-manager/issues/3135): its CRD's conversion webhook
// service is gone, so the namespace controller cannot list challenges at the served version,
// and the namespace stays Terminating. The Challenge is still named, listed at the storage
// version that needs no conversion, with the finalizer that will hold it next.
func TestObjectsBehindBrokenConversionNamed(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	path := "/convert"
	conv := &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
		ConversionReviewVersions: []string{"v1"},
		ClientConfig:             &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "cert-manager", Name: "cert-manager-webhook", Path: &path}},
	}}
	gvr := applyCRD(t, crdSpec{group: "acme.cert-manager.io", kind: "Challenge", plural: "challenges", namespaced: true, versions: []string{"v1alpha2", "v1"}, conversion: conv})
	t.Cleanup(func() {
		_, _ = kc.Dynamic.Resource(crdGVR).Patch(context.Background(), "challenges.acme.cert-manager.io", "application/merge-patch+json", []byte(`{"spec":{"conversion":{"strategy":"None","webhook":null}}}`), metav1.PatchOptions{})
	})
	createNamespace(t, "acme-ns1")
	ch := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "acme.cert-manager.io/v1alpha2", "kind": "Challenge",
		"metadata": map[string]any{"name": "ingress-tls-7b9k2-1812356728-0", "finalizers": []any{"finalizer.acme.cert-manager.io"}},
		"spec":     map[string]any{"dnsName": "app.example.com", "type": "HTTP-01"}}}
	if _, err := kc.Dynamic.Resource(gvr).Namespace("acme-ns1").Create(ctx, ch, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(gvr, "acme-ns1", "ingress-tls-7b9k2-1812356728-0") })
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "acme-ns1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitCondition(t, "acme-ns1", corev1.NamespaceDeletionContentFailure, "conversion webhook")
	out, _, code := run(t, "namespace", "acme-ns1")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"blocked by customresourcedefinitions.apiextensions.k8s.io/challenges.acme.cert-manager.io: its conversion webhook cannot answer (services/cert-manager-webhook -n cert-manager does not exist)",
		"blocked by challenges.acme.cert-manager.io -n acme-ns1: 1 remaining behind the broken conversion webhook; listed at its storage version v1alpha2, which needs no conversion",
		"blocked by challenges.acme.cert-manager.io/ingress-tls-7b9k2-1812356728-0 -n acme-ns1: remains, held by finalizers finalizer.acme.cert-manager.io; listed at its storage version v1alpha2",
	}, []string{"INCOMPLETE"})
}
