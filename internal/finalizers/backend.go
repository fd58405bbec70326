package finalizers

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/kinds"
)

// backendWorkloads follows a Service's selector to the Deployments, StatefulSets and DaemonSets
// whose pods it selects: what would bring a dead webhook or APIService back. exists is false
// when the Service itself is gone.
func (x *Explainer) backendWorkloads(ctx context.Context, s serviceRef) (ws []workload, exists bool, err error) {
	svc, err := cached(x, "servicespec/"+s.namespace+"/"+s.name, func() (*corev1.Service, error) {
		return x.c.Kube.CoreV1().Services(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(svc.Spec.Selector) == 0 {
		// Endpoints managed by hand (or by another controller): no workload to follow.
		return nil, true, nil
	}
	all, err := x.workloads(ctx)
	if err != nil {
		return nil, true, err
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, w := range all {
		if w.ref.Namespace == s.namespace && sel.Matches(labels.Set(w.podLabels)) {
			ws = append(ws, w)
		}
	}
	return ws, true, nil
}

// backendRemedies are the way out of a blocker whose Service cannot answer (b.service): when a
// workload behind the Service is still installed, bring it back (scale it up when it asks for
// no replica), and only then, as a last resort for a product removed for good, removal; when
// the Service is gone or selects no workload, the product appears uninstalled and removal is
// the fix. A failed read gives both, unranked, and says so.
func (x *Explainer) backendRemedies(ctx context.Context, b Blocker, removal Remediation) []Remediation {
	if b.service == nil {
		return []Remediation{removal}
	}
	svc := *b.service
	ws, exists, err := x.backendWorkloads(ctx, svc)
	switch {
	case err != nil:
		removal.Summary = fmt.Sprintf("Restore what serves %s (which workload does could not be read: %s), or, if that product was uninstalled: %s", svc.String(), failureText("following its selector", err), removal.Summary)
		return []Remediation{removal}
	case !exists:
		removal.Summary = fmt.Sprintf("%s does not exist, so the product behind %s appears uninstalled: %s", svc.String(), b.Object.String(), removal.Summary)
		return []Remediation{removal}
	case len(ws) == 0:
		removal.Summary = fmt.Sprintf("No Deployment, StatefulSet or DaemonSet runs pods that %s selects, so the product behind %s appears uninstalled: %s", svc.String(), b.Object.String(), removal.Summary)
		return []Remediation{removal}
	}
	if fix, ok := x.backendNamespaceGoing(ctx, b, svc, removal); ok {
		return []Remediation{fix}
	}
	var out []Remediation
	for _, w := range ws {
		c := w.controller()
		if c.Healthy {
			continue
		}
		r := Remediation{
			Code:    ReasonRestoreController,
			Summary: fmt.Sprintf("Bring %s back: it runs the pods behind %s and has %s ready replicas; %s answers again once one is ready.", w.ref.String(), svc.String(), c.Ready, b.Object.String()),
			Command: x.kubectl(w.ref.Namespace, "describe", w.ref.QualifiedResource(), w.ref.Name),
		}
		if c.ScaledToZero && w.ref.Resource != "daemonsets" {
			r.Code = ReasonScaleUpController
			r.Summary = fmt.Sprintf("Scale %s up: it runs the pods behind %s and is scaled to 0; %s answers again once a replica is ready (use the replica count it normally runs with).", w.ref.String(), svc.String(), b.Object.String())
			r.Command = x.kubectl(w.ref.Namespace, "scale", w.ref.QualifiedResource(), w.ref.Name, "--replicas=1")
			scaled := kinds.Resource{Group: w.ref.Group, Version: w.ref.Version, Resource: w.ref.Resource, Kind: w.ref.Kind, Namespaced: true}
			r.request = &apiRequest{op: admissionv1.Update, res: scaled, subresource: "scale", namespace: w.ref.Namespace, labels: w.labels, labelsKnown: true}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		out = append(out, x.unreachableBackend(ctx, b, svc))
	}
	removal.Summary = "Only if that product was removed for good: " + removal.Summary
	removal.LastResort = true
	return append(out, removal)
}
