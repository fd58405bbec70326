package finalizers

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The finalizer registry: which explainer reads the evidence of which finalizer, and what is
// known of its remover that the cluster cannot show (facts, in known.go). A new explainer is one
// function and one line in registry(); a finalizer no line covers is explained from evidence
// alone (knownOrCustom: RBAC, workloads and the ties to the finalizer's domain).

// explainFunc explains one finalizer, by name, on the object being explained.
type explainFunc func(x *Explainer, ctx context.Context, o subject, name string) Finalizer

// registration is one line of the registry: the finalizer names it covers, the facts known of
// their remover (nil when the explainer reads everything from the cluster), and the explainer.
type registration struct {
	names   nameMatch
	facts   func(name, kind string) known
	explain explainFunc
}

// registry lists every finalizer with an explainer of its own, in the order they are matched
// (the first line whose names match wins).
func registry() []registration {
	byEvidence := (*Explainer).knownOrCustom
	return []registration{
		// Removed by kube-controller-manager or the apiextensions server once what they wait
		// for is gone: the explainer reads that.
		{exact("kubernetes.io/pvc-protection"), nil, byObject((*Explainer).pvcProtection)},
		{exact("kubernetes.io/pv-protection"), nil, byObject((*Explainer).pvProtection)},
		{exact(metav1.FinalizerDeleteDependents), nil, (*Explainer).dependents},
		{exact(metav1.FinalizerOrphanDependents), nil, (*Explainer).dependents},
		{exact("customresourcecleanup.apiextensions.k8s.io"), nil, byObject((*Explainer).crdCleanup)},
		// Removed by a controller whose job is known; who runs it comes from the cluster.
		{exact("finalizers.fluxcd.io"), fluxKnown, byEvidence},
		{exact("batch.kubernetes.io/job-tracking"), jobTracking, (*Explainer).coreController},
		{exact(lbCleanupFinalizer), loadBalancerCleanupFacts, (*Explainer).serviceLoadBalancer},
		{prefix("external-attacher/"), externalAttacher, (*Explainer).csiSidecar},
		{exact(csiProvisionerFinalizer), externalProvisioner, (*Explainer).csiSidecar},
		{prefix("snapshot.storage.kubernetes.io/"), snapshotController, byEvidence},
		{contains("cert-manager.io"), certManager, byEvidence},
		{oneOf(prefix("cnpg.io/"), contains("postgresql.cnpg.io")), cloudNativePG, byEvidence},
		{oneOf(exact("longhorn.io"), prefix("longhorn.io/")), longhorn, byEvidence},
		{contains("velero.io"), velero, byEvidence},
	}
}

// registered returns the registry's line for a finalizer, false when none covers it.
func registered(name string) (registration, bool) {
	for _, r := range registry() {
		if r.names(name) {
			return r, true
		}
	}
	return registration{}, false
}

// dispatchFinalizer explains one finalizer with its registered explainer, else from evidence.
func (x *Explainer) dispatchFinalizer(ctx context.Context, o subject, name string) Finalizer {
	if r, ok := registered(name); ok {
		return r.explain(x, ctx, o, name)
	}
	return x.knownOrCustom(ctx, o, name)
}

// lookupKnown returns the facts known of a finalizer's remover, false when nothing is known
// beyond what the cluster shows.
func lookupKnown(name, kind string) (known, bool) {
	if r, ok := registered(name); ok && r.facts != nil {
		return r.facts(name, kind), true
	}
	return known{}, false
}

// byObject adapts an explainer that needs only the object (its finalizer is implied).
func byObject(f func(x *Explainer, ctx context.Context, o subject) Finalizer) explainFunc {
	return func(x *Explainer, ctx context.Context, o subject, _ string) Finalizer { return f(x, ctx, o) }
}

// withFacts starts the Finalizer of a registered finalizer from the facts known of it.
func withFacts(o subject, name string) (Finalizer, known) {
	k, _ := lookupKnown(name, o.res.Kind)
	return Finalizer{Name: name, RemovedBy: k.removedBy, WaitsFor: k.waitsFor}, k
}

// coreController explains a finalizer that kube-controller-manager itself removes.
func (x *Explainer) coreController(_ context.Context, o subject, name string) Finalizer {
	f, _ := withFacts(o, name)
	return x.coreControllerFinalizer(o, f)
}

// serviceLoadBalancer explains the load balancer cleanup of a Service by its load balancer;
// on any other object, the finalizer is explained from evidence.
func (x *Explainer) serviceLoadBalancer(ctx context.Context, o subject, name string) Finalizer {
	if o.res.Group != "" || o.res.Resource != "services" {
		return x.knownOrCustom(ctx, o, name)
	}
	f, k := withFacts(o, name)
	return x.loadBalancerCleanup(ctx, o, f, k)
}

// csiSidecar explains the finalizer of a CSI driver's sidecar.
func (x *Explainer) csiSidecar(ctx context.Context, o subject, name string) Finalizer {
	f, k := withFacts(o, name)
	return x.csiFinalizer(ctx, o, f, k)
}

// nameMatch says whether a registration covers a finalizer name.
type nameMatch func(name string) bool

func exact(s string) nameMatch    { return func(name string) bool { return name == s } }
func prefix(s string) nameMatch   { return func(name string) bool { return strings.HasPrefix(name, s) } }
func contains(s string) nameMatch { return func(name string) bool { return strings.Contains(name, s) } }

func oneOf(ms ...nameMatch) nameMatch {
	return func(name string) bool {
		for _, m := range ms {
			if m(name) {
				return true
			}
		}
		return false
	}
}
