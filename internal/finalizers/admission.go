package finalizers

import (
	"context"
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// webhook is one admission webhook, with the configuration it belongs to.
type webhook struct {
	config     ObjectRef
	name       string
	failClosed bool
	rules      []admissionv1.RuleWithOperations
	service    *admissionv1.ServiceReference
	url        *string
	nsSel      *metav1.LabelSelector
	objSel     *metav1.LabelSelector
}

// allWebhooks lists every Validating and Mutating webhook, whatever its failure policy, once.
func (x *Explainer) allWebhooks(ctx context.Context) ([]webhook, error) {
	return cached(x, "webhooks", func() ([]webhook, error) {
		all, err := x.webhookConfigs(ctx)
		if err != nil {
			return nil, err
		}
		var out []webhook
		add := func(config ObjectRef, name string, policy *admissionv1.FailurePolicyType, rules []admissionv1.RuleWithOperations, cc admissionv1.WebhookClientConfig, nsSel, objSel *metav1.LabelSelector) {
			out = append(out, webhook{config: config, name: name, failClosed: policy == nil || *policy == admissionv1.Fail,
				rules: rules, service: cc.Service, url: cc.URL, nsSel: nsSel, objSel: objSel})
		}
		for _, c := range all.validating {
			ref := ObjectRef{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration", Name: c.Name}
			for _, w := range c.Webhooks {
				add(ref, w.Name, w.FailurePolicy, w.Rules, w.ClientConfig, w.NamespaceSelector, w.ObjectSelector)
			}
		}
		for _, c := range all.mutating {
			ref := ObjectRef{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations", Kind: "MutatingWebhookConfiguration", Name: c.Name}
			for _, w := range c.Webhooks {
				add(ref, w.Name, w.FailurePolicy, w.Rules, w.ClientConfig, w.NamespaceSelector, w.ObjectSelector)
			}
		}
		return out, nil
	})
}

// failClosedWebhooks lists the Validating and Mutating webhooks with failurePolicy Fail.
func (x *Explainer) failClosedWebhooks(ctx context.Context) ([]webhook, error) {
	all, err := x.allWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	var out []webhook
	for _, w := range all {
		if w.failClosed {
			out = append(out, w)
		}
	}
	return out, nil
}

// webhookBlockers returns a blocker for every fail-closed webhook that intercepts op on res in
// namespace (objects labelled objLabels) and whose service is gone or has no ready endpoint:
// the API server rejects that request, so the controller that must make it never can.
func (x *Explainer) webhookBlockers(ctx context.Context, op admissionv1.OperationType, res kinds.Resource, namespace string, objLabels map[string]string) ([]Blocker, []report.Gap) {
	return x.rejections(ctx, apiRequest{op: op, res: res, namespace: namespace, labels: objLabels, labelsKnown: true})
}

// rejections returns a blocker for every fail-closed webhook that would reject req because its
// service is gone or has no ready endpoint, and the reads that failed on the way.
func (x *Explainer) rejections(ctx context.Context, req apiRequest) ([]Blocker, []report.Gap) {
	op, what := req.op, req.what()
	hooks, gaps := x.interceptors(ctx, req)
	var out []Blocker
	for _, w := range hooks {
		down, gap := x.serviceDown(ctx, w.service.Namespace, w.service.Name)
		if gap != (report.Gap{}) {
			gaps = append(gaps, gap)
		}
		if down == "" {
			continue
		}
		out = append(out, Blocker{
			Object:  w.config,
			Code:    webhookReason(op),
			Reason:  fmt.Sprintf("rejects %s of %s (webhook %s, failurePolicy Fail): %s", op, what, w.name, down),
			Details: []string{"the API server refuses every matching request until the webhook answers"},
			webhook: w.name,
			service: &serviceRef{namespace: w.service.Namespace, name: w.service.Name},
		})
	}
	return out, gaps
}

// judges returns the fail-closed webhooks that intercept req and whose service answers: the API
// server sends them the request, and they may refuse it by their own policy (an operator's
// webhook that guards the objects of its types in some states), as `config (webhook name)`.
func (x *Explainer) judges(ctx context.Context, req apiRequest) ([]string, []report.Gap) {
	hooks, gaps := x.interceptors(ctx, req)
	var out []string
	for _, w := range hooks {
		down, gap := x.serviceDown(ctx, w.service.Namespace, w.service.Name)
		if gap != (report.Gap{}) {
			gaps = append(gaps, gap)
			continue
		}
		if down == "" {
			out = append(out, w.config.String()+" (webhook "+w.name+")")
		}
	}
	return out, gaps
}

// what names the request's resource (and subresource) for prose.
func (req apiRequest) what() string {
	what := req.res.QualifiedName()
	if req.subresource != "" {
		what += "/" + req.subresource
	}
	return what
}

// interceptors returns the fail-closed webhooks with a service whose rules, namespace selector
// and object selector match req, and the reads that failed on the way.
func (x *Explainer) interceptors(ctx context.Context, req apiRequest) ([]webhook, []report.Gap) {
	op, res := req.op, req.res
	hooks, err := x.failClosedWebhooks(ctx)
	if err != nil {
		return nil, []report.Gap{listGap(objectID("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "", ""), "reading admission webhooks that could reject "+string(op)+" of "+req.what(), err)}
	}
	var nsLabels map[string]string
	var out []webhook
	var gaps []report.Gap
	for _, w := range hooks {
		if w.service == nil || !w.intercepts(op, res, req.subresource) || (req.labelsKnown && !selects(w.objSel, req.labels)) {
			continue
		}
		if req.namespace != "" && w.nsSel != nil {
			if nsLabels == nil {
				// Read once per command: every printed command is matched, twice (rejections, judges).
				l, err := cached(x, "nslabels/"+req.namespace, func() (map[string]string, error) {
					ns, err := x.c.Kube.CoreV1().Namespaces().Get(ctx, req.namespace, metav1.GetOptions{})
					if err != nil {
						return nil, err
					}
					return ns.Labels, nil
				})
				if err != nil {
					gaps = append(gaps, getGap(objectID("", "v1", "namespaces", "", req.namespace), "reading namespace "+req.namespace+" to match webhook "+w.name, err))
					continue
				}
				nsLabels = l
				if nsLabels == nil {
					nsLabels = map[string]string{}
				}
			}
			if !selects(w.nsSel, nsLabels) {
				continue
			}
		}
		out = append(out, w)
	}
	return out, gaps
}

// intercepts reports whether one of the webhook's rules matches op on res (or on its
// subresource sub, e.g. namespaces/finalize), as the API server matches rules: "pods" is the
// resource alone, "pods/*" every subresource of it, "*" every resource, "*/*" everything.
func (w webhook) intercepts(op admissionv1.OperationType, res kinds.Resource, sub string) bool {
	names := []string{res.Resource, "*", "*/*"}
	if sub != "" {
		names = []string{res.Resource + "/" + sub, res.Resource + "/*", "*/" + sub, "*/*"}
	}
	for _, r := range w.rules {
		if !slices.Contains(r.Operations, op) && !slices.Contains(r.Operations, admissionv1.OperationAll) {
			continue
		}
		if !anyOf(r.APIGroups, res.Group, "*") || !anyOf(r.Resources, names...) {
			continue
		}
		if r.Scope != nil && *r.Scope != admissionv1.AllScopes && (*r.Scope == admissionv1.NamespacedScope) != res.Namespaced {
			continue
		}
		return true
	}
	return false
}

// selects evaluates a label selector; an absent selector selects everything.
func selects(sel *metav1.LabelSelector, l map[string]string) bool {
	if sel == nil {
		return true
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	return err != nil || s.Matches(labels.Set(l))
}

// serviceDown says why a webhook's service cannot answer ("" when it has a ready endpoint).
func (x *Explainer) serviceDown(ctx context.Context, namespace, name string) (string, report.Gap) {
	type state struct {
		down string
		gap  report.Gap
	}
	s, _ := cached(x, "service/"+namespace+"/"+name, func() (state, error) {
		ref := "services/" + name + " -n " + namespace
		_, err := x.c.Kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return state{down: ref + " does not exist"}, nil
		}
		if err != nil {
			return state{gap: getGap(objectID("", "v1", "services", namespace, name), "reading "+ref, err)}, nil
		}
		eps, err := x.c.Kube.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + name})
		if err != nil {
			return state{gap: listGap(objectID("discovery.k8s.io", "v1", "endpointslices", namespace, ""), "listing the endpoints of "+ref, err)}, nil
		}
		for _, sl := range eps.Items {
			for _, ep := range sl.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					return state{}, nil
				}
			}
		}
		return state{down: ref + " has no ready endpoint"}, nil
	})
	return s.down, s.gap
}

// webhookRemedies restore the webhook's backend when its workload is still installed, or delete
// the configuration an uninstalled admission controller left behind (backend.go).
func (x *Explainer) webhookRemedies(ctx context.Context, b Blocker) []Remediation {
	del := Remediation{
		Code:    ReasonDeleteWebhookConfig,
		Summary: fmt.Sprintf("Delete %s, which an uninstalled admission controller left behind.", b.Object.String()),
		Command: x.kubectl("", "delete", b.Object.QualifiedResource(), b.Object.Name),
		Cost:    "until the configuration is re-created, the policy it enforces is not applied to any request",
	}
	if b.named != nil {
		return x.namedWebhookRemedies(ctx, b, del)
	}
	return x.backendRemedies(ctx, b, del)
}
