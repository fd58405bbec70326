package finalizers

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// convertedCRD is a definition whose conversion webhook calls services/webhook -n product.
func convertedCRD() *apiextensionsv1.CustomResourceDefinition {
	c := crdObject("example.org", "anchors")
	c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "product", Name: "webhook"}}}}
	return c
}

// failClosed is a fail-closed validating webhook on anchors.example.org for ops, served by
// services/webhook -n product.
func failClosed(ops ...admissionv1.OperationType) *admissionv1.ValidatingWebhookConfiguration {
	fail := admissionv1.Fail
	return &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "product-validating"},
		Webhooks: []admissionv1.ValidatingWebhook{{Name: "anchors.example.org", FailurePolicy: &fail,
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "product", Name: "webhook"}},
			Rules: []admissionv1.RuleWithOperations{{Operations: ops,
				Rule: admissionv1.Rule{APIGroups: []string{"example.org"}, APIVersions: []string{"*"}, Resources: []string{"anchors"}}}}}}}
}

// A definition waits for its custom resources; when the Service its conversion webhook calls is
// gone, that Service is named as the blocker and the conversion fix (which the API server
// accepts: the webhook is cleared with the strategy) comes first. A fail-closed webhook that
// intercepts UPDATE of the resources is named too; one that intercepts only CREATE and DELETE
// refuses no finalizer removal and is not. A Service with a ready endpoint blocks nothing.
func TestCRDBackends(t *testing.T) {
	res := kinds.Resource{Group: "example.org", Version: "v2", Resource: "anchors", Kind: "Anchor", Namespaced: true}
	name := "anchors.example.org"

	t.Run("conversion webhook's Service gone", func(t *testing.T) {
		x := fakeExplainer([]runtime.Object{failClosed(admissionv1.Create, admissionv1.Delete)}, convertedCRD())
		bs, fixes, gaps := x.crdBackends(context.Background(), name, res)
		if len(gaps) > 0 {
			t.Fatalf("gaps: %v", gaps)
		}
		if len(bs) != 1 || bs[0].Object.String() != "services/webhook -n product" || bs[0].Code != ReasonConversionWebhookDown {
			t.Fatalf("blockers = %+v", bs)
		}
		if !strings.Contains(bs[0].Reason, "customresourcedefinitions.apiextensions.k8s.io/anchors.example.org") {
			t.Errorf("reason %q names no definition", bs[0].Reason)
		}
		if len(fixes) != 1 || fixes[0].Code != ReasonDisableConversion || !strings.Contains(fixes[0].Command, `"strategy":"None","webhook":null`) {
			t.Fatalf("fixes = %+v", fixes)
		}
	})
	t.Run("a fail-closed webhook refuses the resources' updates", func(t *testing.T) {
		plain := crdObject("example.org", "anchors")
		x := fakeExplainer([]runtime.Object{failClosed(admissionv1.Update)}, plain)
		bs, fixes, _ := x.crdBackends(context.Background(), name, res)
		if len(bs) != 1 || bs[0].Object.String() != "validatingwebhookconfigurations.admissionregistration.k8s.io/product-validating" {
			t.Fatalf("blockers = %+v", bs)
		}
		if len(fixes) == 0 || fixes[0].Code != ReasonDeleteWebhookConfig {
			t.Fatalf("fixes = %+v", fixes)
		}
	})
	t.Run("the Service answers", func(t *testing.T) {
		ready := true
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "webhook", Namespace: "product"}}
		slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "webhook-x", Namespace: "product", Labels: map[string]string{discoveryv1.LabelServiceName: "webhook"}},
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
		x := fakeExplainer([]runtime.Object{svc, slice, failClosed(admissionv1.Update)}, convertedCRD())
		if bs, fixes, gaps := x.crdBackends(context.Background(), name, res); len(bs)+len(fixes)+len(gaps) > 0 {
			t.Fatalf("blockers %+v, fixes %+v, gaps %v", bs, fixes, gaps)
		}
	})
}
