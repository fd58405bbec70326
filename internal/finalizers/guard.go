package finalizers

import (
	"context"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// apiRequest is the request a printed command makes to the API server, as admission webhooks
// see it: the operation, the resource (and subresource), the namespace and the object's labels.
type apiRequest struct {
	op          admissionv1.OperationType
	res         kinds.Resource
	subresource string
	namespace   string
	labels      map[string]string
	// labelsKnown is false when the object's labels were not read: every object selector is
	// then taken to match, so a webhook is never ruled out on a guess.
	labelsKnown bool
}

// deleteRequest is the DELETE of an object of res (forced or not: admission sees the same).
func deleteRequest(res kinds.Resource, namespace string, labels map[string]string) *apiRequest {
	return &apiRequest{op: admissionv1.Delete, res: res, namespace: namespace, labels: labels, labelsKnown: true}
}

// updateRequest is the UPDATE (a patch is one) of an object of res.
func updateRequest(res kinds.Resource, namespace string, labels map[string]string) *apiRequest {
	return &apiRequest{op: admissionv1.Update, res: res, namespace: namespace, labels: labels, labelsKnown: true}
}

// Built-in resources the printed commands act on, for their admission check.
var (
	podsResource       = kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	claimsResource     = kinds.Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	namespacesResource = kinds.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}
	crdsResource       = kinds.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}
	apiServiceResource = kinds.Resource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService"}
)

// guard checks every step's command against the fail-closed admission webhooks that match its
// request. A webhook that would reject it is named on the step (RejectedBy), and the step that
// restores or removes that webhook is put before it, once: the API server accepts the command
// only after that. A webhook that answers is named too (JudgedBy): it sees the command and may
// refuse it by its own policy. Reads that failed are returned; they leave the commands unchecked.
func (x *Explainer) guard(ctx context.Context, steps []Remediation) ([]Remediation, []report.Gap) {
	var out []Remediation
	var gaps []report.Gap
	for _, r := range steps {
		if r.request == nil {
			out = append(out, r)
			continue
		}
		hooks, g := x.rejections(ctx, *r.request)
		gaps = append(gaps, g...)
		judged, g := x.judges(ctx, *r.request)
		gaps = append(gaps, g...)
		r.JudgedBy = append(r.JudgedBy, judged...)
		for _, b := range hooks {
			r.RejectedBy = append(r.RejectedBy, b.Object.String()+" (webhook "+b.webhook+")")
			fixes := x.webhookRemedies(ctx, b)
			last := fixes[len(fixes)-1].Command
			if !slices.ContainsFunc(out, func(o Remediation) bool { return o.Command == last }) {
				out = append(out, fixes...)
			}
		}
		out, g = x.conversionGuard(ctx, &r, out)
		gaps = append(gaps, g...)
		out = append(out, r)
	}
	return out, gaps
}

// guardExplanation runs guard over the object's own steps and every finalizer's. The reads it
// could not make are recorded as not checked: they name what the commands' check missed.
func (x *Explainer) guardExplanation(ctx context.Context, e *Explanation) {
	var gaps []report.Gap
	var g []report.Gap
	e.Remedies, g = x.guard(ctx, e.Remedies)
	e.Remedies = withoutRepeats(e.Remedies)
	gaps = append(gaps, g...)
	for i := range e.Finalizers {
		e.Finalizers[i].Remedies, g = x.guard(ctx, e.Finalizers[i].Remedies)
		e.Finalizers[i].Remedies = withoutRepeats(e.Finalizers[i].Remedies)
		gaps = append(gaps, g...)
	}
	for _, gap := range gaps {
		gap.What = "whether an admission webhook rejects the commands printed: " + gap.What
		if !slices.Contains(e.Unchecked, gap) {
			e.Unchecked = append(e.Unchecked, gap)
		}
	}
}
