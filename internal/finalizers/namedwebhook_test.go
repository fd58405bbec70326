package finalizers

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestWebhookNamesIn(t *testing.T) {
	checkAll(t, "webhookNamesIn", func(msg string) string {
		var out []string
		for _, n := range webhookNamesIn(msg) {
			s := n.name
			if n.denied {
				s += " (denied)"
			}
			out = append(out, s)
		}
		return strings.Join(out, ",")
	}, []expect[string, string]{
		{`Failed to delete all resource types, 1 remaining: Internal error occurred: failed calling webhook "v.example.org": failed to call webhook: Post "https://x"`, "v.example.org"},
		{`admission webhook "deny.example.org" denied the request: no`, "deny.example.org (denied)"},
		{`failed calling webhook "a.b": x; failed calling webhook "a.b": y`, "a.b"},
		{"All content successfully removed", ""},
	})
}

// namedHookObjects is a validating webhook v.example.org (failurePolicy Fail) on widgets,
// served by services/hooks -n product, whose Deployment and endpoints are ready: nothing is
// down, so the service-state rule sees no rejection.
func namedHookObjects() []runtime.Object {
	fail := admissionv1.Fail
	ready := true
	one := int32(1)
	cfg := &admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "product-validation"},
		Webhooks: []admissionv1.ValidatingWebhook{{Name: "v.example.org", FailurePolicy: &fail,
			ClientConfig: admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: "product", Name: "hooks"}},
			Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Delete},
				Rule: admissionv1.Rule{APIGroups: []string{"example.org"}, APIVersions: []string{"*"}, Resources: []string{"widgets"}}}}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Namespace: "product"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "hooks"}}}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "hooks-x", Namespace: "product", Labels: map[string]string{discoveryv1.LabelServiceName: "hooks"}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "hooks", Namespace: "product"},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "hooks"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "hooks"}}}},
		Status: appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 1}}
	return []runtime.Object{cfg, svc, slice, dep}
}

// A webhook that the namespace's own condition names as failing its deletes is the blocker,
// found by name although its backend looks up; the step that unblocks is setting the
// configuration aside (not a last resort, no reinstall), after fixing the call's path.
func TestNamedWebhookBlockers(t *testing.T) {
	ctx := context.Background()
	failed := Condition{Type: "NamespaceDeletionContentFailure", Status: "True", Reason: "ContentDeletionFailed",
		Message: `Failed to delete all resource types, 1 remaining: Internal error occurred: failed calling webhook "v.example.org": failed to call webhook: tls: bad certificate`}
	const cfg = "validatingwebhookconfigurations.admissionregistration.k8s.io/product-validation"

	t.Run("named in a condition", func(t *testing.T) {
		x := fakeExplainer(namedHookObjects())
		bs, gaps := x.namedWebhookBlockers(ctx, []Condition{failed}, "the namespace controller's deletes", nil)
		if len(gaps) > 0 || len(bs) != 1 || bs[0].Object.String() != cfg || bs[0].Code != ReasonWebhookRejectsDelete {
			t.Fatalf("blockers %+v, gaps %v", bs, gaps)
		}
		if !strings.Contains(bs[0].Reason, "services/hooks -n product") {
			t.Errorf("reason %q names not the Service it calls", bs[0].Reason)
		}
		fixes := x.webhookRemedies(ctx, bs[0])
		if len(fixes) != 2 || fixes[1].Code != ReasonDeleteWebhookConfig || fixes[1].LastResort || !strings.Contains(fixes[1].Summary, "apply the saved copy again") {
			t.Fatalf("fixes = %+v", fixes)
		}
		if !strings.Contains(fixes[0].Summary, "services/hooks -n product") || strings.Contains(fixes[1].Summary, "uninstalled") {
			t.Errorf("fixes = %+v", fixes)
		}
	})
	t.Run("without the rule's evidence, the same webhook is no blocker", func(t *testing.T) {
		x := fakeExplainer(namedHookObjects())
		stale := failed
		stale.Status = "False"
		if bs, gaps := x.namedWebhookBlockers(ctx, []Condition{stale}, "deletes", nil); len(bs)+len(gaps) > 0 {
			t.Fatalf("blockers %+v, gaps %v", bs, gaps)
		}
		res := testPolicy
		res.Group, res.Resource = "example.org", "widgets"
		if bs, _ := x.rejections(ctx, apiRequest{op: admissionv1.Delete, res: res, namespace: "team"}); len(bs) != 0 {
			t.Fatalf("the service-state rule alone names %+v", bs)
		}
	})
	t.Run("already named by the service-state rule", func(t *testing.T) {
		x := fakeExplainer(namedHookObjects())
		have := []Blocker{{Object: ObjectRef{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration", Name: "product-validation"}}}
		if bs, _ := x.namedWebhookBlockers(ctx, []Condition{failed}, "deletes", have); len(bs) != 0 {
			t.Fatalf("repeated: %+v", bs)
		}
	})
	t.Run("named but held by no configuration", func(t *testing.T) {
		x := fakeExplainer(nil)
		bs, gaps := x.namedWebhookBlockers(ctx, []Condition{failed}, "deletes", nil)
		if len(bs) != 0 || len(gaps) != 1 || !strings.Contains(gaps[0].What, "v.example.org") {
			t.Fatalf("blockers %+v, gaps %v", bs, gaps)
		}
	})
	t.Run("denied by a mutating webhook", func(t *testing.T) {
		m := &admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionv1.MutatingWebhook{{Name: "m.example.org", ClientConfig: admissionv1.WebhookClientConfig{URL: ptrTo("https://hooks.example.net/m")}}}}
		x := fakeExplainer([]runtime.Object{m})
		c := Condition{Type: "Ready", Status: "True", Message: `admission webhook "m.example.org" denied the request: busy`}
		bs, _ := x.namedWebhookBlockers(ctx, []Condition{c}, "deletes", nil)
		if len(bs) != 1 || bs[0].Object.Resource != "mutatingwebhookconfigurations" || !strings.Contains(bs[0].Reason, "https://hooks.example.net/m") {
			t.Fatalf("blockers %+v", bs)
		}
		if fixes := x.webhookRemedies(ctx, bs[0]); len(fixes) != 1 || fixes[0].Code != ReasonDeleteWebhookConfig {
			t.Fatalf("fixes = %+v", fixes)
		}
	})
}

// One remaining object of a type is the blocker's object, by name; several stay one blocker
// for the type, their names in the details.
func TestContentBlockerNamesOne(t *testing.T) {
	item := func(n string) metav1.PartialObjectMetadata {
		return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "team"}}
	}
	res := testPolicy
	one := contentBlocker(TypeObjects{Resource: res, Items: []metav1.PartialObjectMetadata{item("a")}})
	if one.Object.String() != "policies.policies.example.io/a -n team" {
		t.Errorf("one: %s", one.Object.String())
	}
	two := contentBlocker(TypeObjects{Resource: res, Items: []metav1.PartialObjectMetadata{item("a"), item("b")}})
	if two.Object.Name != "" || two.Count != 2 || two.Details[0] != "a, b" {
		t.Errorf("two: %+v", two)
	}
}
