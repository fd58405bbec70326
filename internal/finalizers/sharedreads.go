package finalizers

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Cluster-wide lists that several explainers read (admission, the ranking of removers, a
// namespace's blockers): each is listed once per command and shared.

// webhookConfigurations are the cluster's admission webhook configurations.
type webhookConfigurations struct {
	validating []admissionv1.ValidatingWebhookConfiguration
	mutating   []admissionv1.MutatingWebhookConfiguration
}

// webhookConfigs lists the Validating and Mutating webhook configurations once per command.
func (x *Explainer) webhookConfigs(ctx context.Context) (*webhookConfigurations, error) {
	return cached(x, "webhookconfigurations", func() (*webhookConfigurations, error) {
		api := x.c.Kube.AdmissionregistrationV1()
		vs, err := api.ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing validatingwebhookconfigurations.admissionregistration.k8s.io: %w", err)
		}
		ms, err := api.MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing mutatingwebhookconfigurations.admissionregistration.k8s.io: %w", err)
		}
		return &webhookConfigurations{validating: vs.Items, mutating: ms.Items}, nil
	})
}

// apiServices lists every APIService once per command.
func (x *Explainer) apiServices(ctx context.Context) ([]unstructured.Unstructured, error) {
	return cached(x, "apiservices", func() ([]unstructured.Unstructured, error) {
		if items, ok := x.catalog.APIServices(); ok {
			// Discovery's availability check read them at the start of this command.
			return items, nil
		}
		l, err := x.c.Dynamic.Resource(apiServiceGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}
