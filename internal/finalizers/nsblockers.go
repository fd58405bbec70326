package finalizers

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// unavailableAPIServices returns a blocker for every APIService that is not Available: the
// namespace controller cannot delete content of a group it cannot discover. A failed list is a
// gap only when it can change the verdict: when the namespace controller reports a discovery
// failure; otherwise it is recorded as unchecked.
func (x *Explainer) unavailableAPIServices(ctx context.Context, f *Finalizer, conds []Condition) []Blocker {
	list, err := x.apiServices(ctx)
	if err != nil {
		gap := listGap(typeID(apiServiceResource, ""), "listing apiservices.apiregistration.k8s.io", err)
		if conditionTrue(conds, string(corev1.NamespaceDeletionDiscoveryFailure)) {
			gap.Error += " (the namespace controller reports a discovery failure, so an unavailable APIService may be the blocker)"
			f.Incomplete = append(f.Incomplete, gap)
		} else {
			gap.Error += " (cannot change this verdict: the namespace controller reports no discovery failure)"
			f.Unchecked = append(f.Unchecked, gap)
		}
		return nil
	}
	var out []Blocker
	for _, item := range list {
		conds, _, _ := unstructuredConditions(item.Object)
		for _, c := range conds {
			if c.Type != "Available" || c.Status == "True" {
				continue
			}
			b := Blocker{
				Code:    ReasonAPIServiceUnavailable,
				Object:  ObjectRef{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Name: item.GetName()},
				Reason:  "is unavailable, so the namespace controller cannot discover and delete that group's objects",
				Details: []string{c.Reason + ": " + c.Message},
			}
			svcNS, _, _ := unstructured.NestedString(item.Object, "spec", "service", "namespace")
			svcName, _, _ := unstructured.NestedString(item.Object, "spec", "service", "name")
			if svcName != "" {
				b.service = &serviceRef{namespace: svcNS, name: svcName}
			}
			out = append(out, b)
		}
	}
	return out
}

func conditionTrue(conds []Condition, typ string) bool {
	for _, c := range conds {
		if c.Type == typ && c.Status == "True" {
			return true
		}
	}
	return false
}

// namespaceRemedies: fix each blocker seen; the finalize bypass only when a dead controller or
// a gone backend is proven, never as the only step while the blocker is unknown.
func (x *Explainer) namespaceRemedies(ctx context.Context, ns *corev1.Namespace, f Finalizer, stuck, explainedBelow int) []Remediation {
	var out []Remediation
	proven := false
	for _, b := range f.Blockers {
		switch b.Object.Resource {
		case "apiservices":
			proven = true
			del := Remediation{
				Code:    ReasonDeleteAPIService,
				Summary: fmt.Sprintf("Delete APIService %s, whose API was removed.", b.Object.Name),
				Command: x.kubectl("", "delete", "apiservices.apiregistration.k8s.io", b.Object.Name),
				Cost:    "deleting it makes that API's objects unreachable until it is registered again",
				request: &apiRequest{op: admissionv1.Delete, res: apiServiceResource},
			}
			if b.service == nil {
				del.Summary = fmt.Sprintf("Restore the backend of APIService %s, or delete the APIService if that API was removed for good.", b.Object.Name)
			}
			out = append(out, x.backendRemedies(ctx, b, del)...)
		case "validatingwebhookconfigurations", "mutatingwebhookconfigurations":
			proven = true
			out = append(out, x.webhookRemedies(ctx, b)...)
		case "customresourcedefinitions":
			proven = true
			out = append(out, x.backendRemedies(ctx, b, x.conversionRemedy(b))...)
		}
		if b.Terminating != nil && explanationDead(b.Terminating) {
			proven = true
		}
	}
	if stuck > 0 {
		where := "explained below"
		if explainedBelow == 0 {
			where = "they are not being deleted yet, so run why-terminating on each after the namespace controller deletes them"
		}
		out = append(out, Remediation{Summary: fmt.Sprintf("%d remaining object(s) carry finalizers: clear each one's blocker (%s); the namespace controller then finishes.", stuck, where)})
	}
	if len(out) == 0 && len(f.Blockers) > 0 && len(f.Incomplete) == 0 {
		out = append(out, Remediation{Summary: "The namespace controller is still deleting the remaining objects; it needs no help unless the count stops falling."})
	}
	if !proven {
		return out
	}
	return append(out, x.finalizeBypass(ns, "kubernetes", "Only if the blockers above can never be cleared: remove the namespace finalizer through the finalize subresource."))
}

// explanationDead reports a held object whose finalizer's controller is proven absent.
func explanationDead(e *Explanation) bool {
	for _, f := range e.Finalizers {
		for _, c := range f.Controllers {
			if !c.Found {
				return true
			}
		}
	}
	return false
}

// finalizeBypass removes one spec finalizer of a namespace through the finalize subresource.
func (x *Explainer) finalizeBypass(ns *corev1.Namespace, finalizer, summary string) Remediation {
	get := x.kubectl("", "get", "namespace", ns.Name, "-o", "json")
	put := x.kubectl("", "replace", "--raw", "/api/v1/namespaces/"+ns.Name+"/finalize", "-f", "-")
	return Remediation{
		Code:       ReasonFinalizeNamespace,
		Summary:    summary,
		Command:    get + " | jq " + shellQuote(fmt.Sprintf(".spec.finalizers -= [%q]", finalizer)) + " | " + put,
		Cost:       "every object still in the namespace stays in etcd without a namespace, and reappears if a namespace of that name is created again",
		LastResort: true,
		request:    &apiRequest{op: admissionv1.Update, res: namespacesResource, subresource: "finalize", namespace: ns.Name, labels: ns.Labels, labelsKnown: true},
	}
}

// namespaceSpecFinalizer explains a spec finalizer other than `kubernetes` (openshift.io/origin
// left behind by a removed OpenShift controller): it is removed through namespaces/finalize,
// so whoever RBAC lets update that subresource is the candidate.
func (x *Explainer) namespaceSpecFinalizer(ctx context.Context, o subject, ns *corev1.Namespace, name string) Finalizer {
	f := Finalizer{
		Name:      name,
		RemovedBy: "the controller that registered this spec finalizer, through the namespaces/finalize subresource",
		WaitsFor:  "that controller cleans up what it keeps for the namespace, then removes its finalizer",
	}
	finalize := subject{res: kinds.Resource{Version: "v1", Resource: "namespaces/finalize", Kind: "Namespace"}, obj: o.obj, depth: o.depth}
	_, stem := domainOf(name)
	a, gaps := x.attribute(ctx, finalize, []string{stem})
	f.Incomplete = append(f.Incomplete, gaps...)
	f.Controllers, f.Attribution = a.controllers, a.summary
	for _, c := range a.controllers {
		if c.Found && !c.Healthy {
			f.Remedies = append(f.Remedies, Remediation{Code: ReasonRestoreController, Summary: fmt.Sprintf("Bring %s back to ready replicas (it has %s); it then removes the finalizer itself.", c.Object.String(), c.Ready)})
		}
	}
	if a.dead {
		f.Remedies = append(f.Remedies, x.finalizeBypass(ns, name, fmt.Sprintf("Only if the controller behind %s is gone for good: remove that spec finalizer through the finalize subresource.", name)))
		f.Remedies[len(f.Remedies)-1].Cost = "whatever that controller keeps for this namespace outside it is never cleaned up"
	}
	return f
}
