package finalizers

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// brokenConversion is a CRD whose conversion webhook cannot answer.
type brokenConversion struct {
	crd     ObjectRef
	group   string
	plural  string
	down    string
	service serviceRef
}

// crds lists every CustomResourceDefinition once per command.
func (x *Explainer) crds(ctx context.Context) ([]apiextensionsv1.CustomResourceDefinition, error) {
	return cached(x, "crds", func() ([]apiextensionsv1.CustomResourceDefinition, error) {
		l, err := x.c.APIExtensions.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

// brokenConversions lists every CRD, cluster-wide, whose conversion webhook's service is gone
// or has no ready endpoint: objects stored at another version than the one asked for cannot
// be read, listed or deleted, in any namespace.
func (x *Explainer) brokenConversions(ctx context.Context) ([]brokenConversion, []report.Gap) {
	list, err := x.crds(ctx)
	if err != nil {
		return nil, []report.Gap{listGap(typeID(crdsResource, ""), "listing customresourcedefinitions.apiextensions.k8s.io to check conversion webhooks", err)}
	}
	var out []brokenConversion
	var gaps []report.Gap
	for _, crd := range list {
		conv := crd.Spec.Conversion
		if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil || conv.Webhook.ClientConfig.Service == nil {
			continue
		}
		svc := conv.Webhook.ClientConfig.Service
		down, gap := x.serviceDown(ctx, svc.Namespace, svc.Name)
		if gap != (report.Gap{}) {
			gaps = append(gaps, gap)
		}
		if down != "" {
			out = append(out, brokenConversion{
				crd:   ObjectRef{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition", Name: crd.Name},
				group: crd.Spec.Group, plural: crd.Spec.Names.Plural, down: down, service: serviceRef{namespace: svc.Namespace, name: svc.Name},
			})
		}
	}
	return out, gaps
}

// conversionBlockers links the namespace's failed reads and conditions to the CRDs whose
// conversion webhook is down. A CRD counts when the sweep could not list its type here, or a
// deletion-failure condition names its group.
func (x *Explainer) conversionBlockers(ctx context.Context, failedTypes []string, conds []Condition) ([]Blocker, map[string]bool, []report.Gap) {
	broken, gaps := x.brokenConversions(ctx)
	explained := map[string]bool{}
	var out []Blocker
	for _, b := range broken {
		qualified := b.plural + "." + b.group
		why := ""
		for _, t := range failedTypes {
			if t == qualified {
				why, explained[t] = "this namespace's "+qualified+" cannot be listed", true
			}
		}
		for _, c := range conds {
			if c.Status == "True" && strings.HasPrefix(c.Type, "NamespaceDeletion") && strings.Contains(c.Message, b.group+"/") && why == "" {
				why = "condition " + c.Type + " names " + b.group
			}
		}
		if why == "" {
			continue
		}
		out = append(out, Blocker{
			Object:  b.crd,
			Code:    ReasonConversionWebhookDown,
			Reason:  fmt.Sprintf("its conversion webhook cannot answer (%s), so the namespace controller cannot list or delete %s: %s", b.down, qualified, why),
			Details: []string{"a CRD's conversion webhook serves every namespace: this holds any namespace with such objects"},
			service: &b.service,
		})
	}
	return out, explained, gaps
}

// conversionRemedy restores the webhook's backend or stops converting.
func (x *Explainer) conversionRemedy(b Blocker) Remediation {
	return Remediation{
		Code:    ReasonDisableConversion,
		Summary: fmt.Sprintf("Set the conversion strategy of %s to None, so its objects are served without the webhook.", b.Object.String()),
		Command: x.kubectl("", "patch", b.Object.QualifiedResource(), b.Object.Name, "--type=merge", "-p", `{"spec":{"conversion":{"strategy":"None","webhook":null}}}`),
		Cost:    "with strategy None, objects are served at every version unconverted: fields that differ between versions are wrong or dropped for clients of the other versions",
		request: &apiRequest{op: admissionv1.Update, res: crdsResource},
	}
}

// listBehindConversion lists, in namespace ns, the objects of each type whose listing failed
// because its CRD's conversion webhook cannot answer (explained), through the CRD's storage
// version: objects stored at that version are read without conversion, so they can still be
// named and their finalizers shown. A type that fails at its storage version too is a gap.
func (x *Explainer) listBehindConversion(ctx context.Context, ns string, explained map[string]bool) ([]TypeObjects, []report.Gap) {
	var out []TypeObjects
	var gaps []report.Gap
	names := make([]string, 0, len(explained))
	for t := range explained {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, name := range names {
		res, err := x.crdResource(ctx, name)
		if err == nil && res.Version == "" {
			err = errors.New("it declares no storage version")
		}
		if err != nil {
			gaps = append(gaps, getGap(typeID(crdsResource, "").Named(name), "reading customresourcedefinitions.apiextensions.k8s.io/"+name+" for its storage version", err))
			continue
		}
		items, err := ListMetadata(ctx, x.c.Metadata, res, ns, nil)
		if err != nil {
			gaps = append(gaps, listGap(typeID(res, ns), "listing "+name+" at its storage version "+res.Version, err))
			continue
		}
		out = append(out, TypeObjects{Resource: res, Items: items})
	}
	return out, gaps
}
