package finalizers

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// crdBackends names what a definition being deleted waits on besides its custom resources' own
// controllers: the Services that must answer before any of those resources can be written. Its
// conversion webhook's Service, when gone or without a ready endpoint, blocks every read and
// write of an object at a version other than the one it is stored at; a fail-closed admission
// webhook that intercepts UPDATE of the resources, with its Service down, refuses every
// finalizer removal, the controller's and a hand-made patch alike. Each is a blocker, and its
// fixes come first: a strip of a custom resource's finalizer before them would be refused.
func (x *Explainer) crdBackends(ctx context.Context, name string, res kinds.Resource) ([]Blocker, []Remediation, []report.Gap) {
	crd, err := x.c.APIExtensions.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, []report.Gap{getGap(typeID(crdsResource, "").Named(name), "reading customresourcedefinitions.apiextensions.k8s.io/"+name+" for its conversion webhook", err)}
	}
	var blockers []Blocker
	var fixes []Remediation
	var gaps []report.Gap
	crdRef := ObjectRef{Group: crdsResource.Group, Version: crdsResource.Version, Resource: crdsResource.Resource, Kind: crdsResource.Kind, Name: name}
	if svc := conversionService(crd); svc != nil {
		down, gap := x.serviceDown(ctx, svc.namespace, svc.name)
		if gap != (report.Gap{}) {
			gaps = append(gaps, gap)
		}
		if down != "" {
			blockers = append(blockers, Blocker{
				Object:  ObjectRef{Version: "v1", Resource: "services", Kind: "Service", Namespace: svc.namespace, Name: svc.name},
				Code:    ReasonConversionWebhookDown,
				Reason:  fmt.Sprintf("serves the conversion webhook of %s and cannot answer (%s): an object of %s stored at another version than the one asked for cannot be read or written, so neither its controller nor a patch by hand can remove its finalizers", crdRef.String(), down, res.QualifiedName()),
				Details: []string{"restore the webhook, or set the conversion strategy to None, before removing any finalizer of these objects by hand"},
				service: svc,
			})
			conv := Blocker{Object: crdRef, service: svc}
			fixes = append(fixes, x.backendRemedies(ctx, conv, x.conversionRemedy(conv))...)
		}
	}
	hooks, hookGaps := x.rejections(ctx, apiRequest{op: admissionv1.Update, res: res})
	gaps = append(gaps, hookGaps...)
	for _, b := range hooks {
		b.Details = append(b.Details, "its custom resources' finalizers are removed by an UPDATE, which it refuses: fix it before removing any of them by hand")
		blockers = append(blockers, b)
		fixes = append(fixes, x.webhookRemedies(ctx, b)...)
	}
	return blockers, fixes, gaps
}

// conversionService is the Service a definition's conversion webhook calls, nil when it
// converts without one.
func conversionService(crd *apiextensionsv1.CustomResourceDefinition) *serviceRef {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
		return nil
	}
	s := conv.Webhook.ClientConfig.Service
	return &serviceRef{namespace: s.Namespace, name: s.Name}
}
