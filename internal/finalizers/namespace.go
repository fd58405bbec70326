package finalizers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxNamesShown bounds the object names listed per remaining type.
const maxNamesShown = 5

var apiServiceGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// namespaceFinalizers explains the namespace's spec finalizers. `kubernetes` is removed by the
// namespace controller after it has deleted every object in the namespace; the status
// conditions are reported as the controller wrote them, verified against a live sweep of the
// content, and the blockers named: held objects, fail-closed admission webhooks that reject the
// deletions, CRD conversion webhooks that make a type unlistable, unavailable APIServices. Any
// other spec finalizer is attributed to whoever may update namespaces/finalize.
func (x *Explainer) namespaceFinalizers(ctx context.Context, o subject, e *Explanation) []Finalizer {
	ns, err := x.namespaceAsListed(ctx, o.obj)
	if err != nil {
		f := Finalizer{Name: "kubernetes", RemovedBy: "kube-controller-manager (namespace controller)", WaitsFor: "every object in the namespace is deleted"}
		f.Incomplete = append(f.Incomplete, getGap(o.ref().ID(), "reading namespace "+o.obj.GetName(), err))
		return []Finalizer{f}
	}
	for _, c := range ns.Status.Conditions {
		e.Conditions = append(e.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	var out []Finalizer
	for _, name := range ns.Spec.Finalizers {
		if name == corev1.FinalizerKubernetes {
			out = append(out, x.namespaceContent(ctx, o, ns, e))
			continue
		}
		out = append(out, x.namespaceSpecFinalizer(ctx, o, ns, string(name)))
	}
	if len(ns.Spec.Finalizers) > 0 && !hasKubernetes(ns.Spec.Finalizers) {
		markStale(e.Conditions, "the namespace controller has finished: only other spec finalizers remain")
	}
	return out
}

// namespaceAsListed reads a namespace in full (status and spec finalizers), not older than the
// version read of it, once per command: a sweep starts the read when its LIST meets the
// namespace Terminating, and the explanation, made after the namespace's content, takes it.
func (x *Explainer) namespaceAsListed(ctx context.Context, obj metav1.Object) (*corev1.Namespace, error) {
	return cached(x, "namespace-as-listed/"+obj.GetName()+"/"+obj.GetResourceVersion(), func() (*corev1.Namespace, error) {
		return asListed(ctx, obj.GetResourceVersion(), func(opts metav1.GetOptions) (*corev1.Namespace, error) {
			return x.c.Kube.CoreV1().Namespaces().Get(ctx, obj.GetName(), opts)
		})
	})
}

func hasKubernetes(fs []corev1.FinalizerName) bool {
	for _, f := range fs {
		if f == corev1.FinalizerKubernetes {
			return true
		}
	}
	return false
}

// namespaceContent explains spec finalizer `kubernetes`.
func (x *Explainer) namespaceContent(ctx context.Context, o subject, ns *corev1.Namespace, e *Explanation) Finalizer {
	f := Finalizer{
		Name:      "kubernetes",
		RemovedBy: "kube-controller-manager (namespace controller)",
		WaitsFor:  "every object in the namespace is deleted, and every API group can be discovered",
	}
	scan := x.scan(ctx, ns.Name)
	var failed []string
	for _, fail := range scan.Failed {
		failed = append(failed, fail.Resource)
	}
	conv, explained, gaps := x.conversionBlockers(ctx, failed, e.Conditions)
	f.Blockers = append(f.Blockers, conv...)
	f.Incomplete = append(f.Incomplete, gaps...)
	for _, fail := range scan.Failed {
		if !explained[fail.Resource] {
			f.Incomplete = append(f.Incomplete, fail.Gap(ns.Name, "listing "+fail.Resource+" in the namespace"))
		}
	}
	f.Blockers = append(f.Blockers, x.unavailableAPIServices(ctx, &f, e.Conditions)...)
	behind, gaps := x.listBehindConversion(ctx, ns.Name, explained)
	f.Incomplete = append(f.Incomplete, gaps...)
	types := append(append([]TypeObjects(nil), scan.Types...), behind...)
	ordered := waitsForPods(scan)
	x.prefetchHeld(ctx, types, ordered, o.depth+1)
	var c tally
	for i, t := range types {
		note := ""
		if i >= len(scan.Types) {
			note = fmt.Sprintf("; listed at its storage version %s, which needs no conversion: once the conversion webhook answers (or conversion is None) the namespace controller deletes it, and its finalizers then hold it", t.Resource.Version)
		}
		x.addContent(ctx, o, ns.Name, t, note, ordered, &f, &c)
	}
	named, gaps := x.namedWebhookBlockers(ctx, e.Conditions, "the namespace controller's deletes", f.Blockers)
	f.Blockers = append(named, f.Blockers...)
	f.Incomplete = append(f.Incomplete, gaps...)
	f.Remedies = x.namespaceRemedies(ctx, ns, f, c.stuck, c.explainedBelow)
	if c.pods.total > 0 && c.pods.shuttingDown == c.pods.total && c.stuck == 0 && len(f.Incomplete) == 0 && len(f.Blockers) == 1 {
		e.Deleting = true
		ev := []ProgressEvidence{{Kind: ProgressBlockersDeleting, Detail: fmt.Sprintf("%d pod(s) are shutting down within their grace period, on Ready nodes whose kubelets post", c.pods.total)}}
		if len(f.Waiting) > 0 {
			ev = append(ev, ProgressEvidence{Kind: ProgressBlockersDeleting, Detail: fmt.Sprintf("%d object(s) of %d other type(s) wait for them: ordered namespace deletion deletes pods first", c.remaining-c.pods.total, len(f.Waiting))})
		}
		e.recordProgress(ev)
		f.Remedies = []Remediation{{Summary: "Nothing to do: the namespace controller finishes once the pods are gone."}}
	}
	if len(scan.Failed) == 0 {
		x.verifyConditions(e.Conditions, c.remaining, c.stuck, len(f.Blockers) > 0)
	}
	return f
}

// verifyConditions marks the namespace controller's conditions that a fresh sweep disagrees with.
func (x *Explainer) verifyConditions(conds []Condition, remaining, withFinalizers int, blocked bool) {
	for i := range conds {
		c := &conds[i]
		if c.Status != "True" {
			continue
		}
		switch {
		case c.Type == string(corev1.NamespaceContentRemaining) && remaining == 0:
			c.Stale = "a fresh sweep finds no object left in the namespace"
		case c.Type == string(corev1.NamespaceFinalizersRemaining) && withFinalizers == 0:
			c.Stale = "a fresh sweep finds no remaining object with finalizers"
		case c.Type == string(corev1.NamespaceDeletionDiscoveryFailure) && !blocked && x.catalogHealthy():
			c.Stale = "discovery and every APIService answer now"
		}
	}
}

// markStale marks every True deletion condition stale with why; used when the namespace
// controller is done and other finalizers remain.
func markStale(conds []Condition, why string) {
	for i := range conds {
		if conds[i].Status == "True" && strings.HasPrefix(conds[i].Type, "Namespace") {
			conds[i].Stale = why
		}
	}
}

// catalogHealthy reports whether discovery found every group version this run.
func (x *Explainer) catalogHealthy() bool { return len(x.catalog.Failed) == 0 }

// contentBlocker summarises the remaining objects of one type.
func contentBlocker(t TypeObjects) Blocker {
	shown := firstNames(t.Items, maxNamesShown)
	detail := strings.Join(shown, ", ")
	if len(t.Items) > len(shown) {
		detail += fmt.Sprintf(" and %d more", len(t.Items)-len(shown))
	}
	ref := ObjectRef{Group: t.Resource.Group, Version: t.Resource.Version, Resource: t.Resource.Resource, Kind: t.Resource.Kind, Namespace: t.Items[0].Namespace}
	if len(t.Items) == 1 {
		// One object: the blocker is that object, named, not its type.
		ref.Name = t.Items[0].Name
	}
	return Blocker{Object: ref, Code: ReasonNamespaceContentRemaining, Count: len(t.Items), Reason: fmt.Sprintf("%d remaining", len(t.Items)), Details: []string{detail}}
}
