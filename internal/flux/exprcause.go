package flux

// The root causes a dependsOn readyExpr makes: a Kustomization's own, and a HelmRelease's,
// which is a cause of its own with the Kustomization that applies it as a tier.

import (
	"fmt"
	"slices"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readyExprBlocks records a readyExpr that is false, or cannot be evaluated, as the waiter's
// own cause, and reports whether it did.
func (cs *causes) readyExprBlocks(n *Node, re *ReadyExpr) bool {
	switch {
	case re.Ready != nil && *re.Ready:
		return false
	case cs.byKey[n.ID] == nil:
		cs.byKey[n.ID] = &RootCause{Kustomization: n.ID}
	}
	exprCause(cs.byKey[n.ID], re, "kustomize-controller", func(ns, name string) string { return kustomizationRef(ns + "/" + name) })
	return true
}

// waiting reports whether helm-controller holds the HelmRelease back on its dependsOn: it
// writes Ready=False with reason DependencyNotReady, as kustomize-controller does.
func (hr *HelmRelease) waiting() bool {
	return hr.Ready != nil && hr.Ready.Status == string(metav1.ConditionFalse) && hr.Ready.Reason == meta.DependencyNotReadyReason
}

// helmReleaseKey is the key of a HelmRelease's own cause.
func helmReleaseKey(namespace, name string) string { return "HelmRelease/" + namespace + "/" + name }

// addHelmReleaseExprs records as a root cause every waiting HelmRelease a Kustomization of the
// chain applies whose readyExpr is false or cannot be evaluated: helm-controller holds it back
// on that expression, whatever the Kustomization that applies it says. The cause is the
// HelmRelease itself; its Kustomization becomes one of its tiers when it fails on it (addFailing).
func (cs *causes) addHelmReleaseExprs(ids []string) {
	for _, id := range ids {
		for _, hr := range cs.nodes[id].HelmReleases {
			for i := range hr.ReadyExprs {
				re := &hr.ReadyExprs[i]
				if re.Ready != nil && *re.Ready {
					continue
				}
				key := helmReleaseKey(hr.Namespace, hr.Name)
				rc, ok := cs.byKey[key]
				if !ok {
					rc = &RootCause{Object: helmReleaseRef(hr.Namespace, hr.Name), AppliedBy: id, HelmReleases: []HelmRelease{hr}}
					cs.byKey[key] = rc
				}
				exprCause(rc, re, "helm-controller", helmReleaseRef)
			}
		}
	}
}

// exprCause gives rc the reason and message of a readyExpr that does not hold (the first one
// when several do not) and the values it saw, evaluated by controller in place of its own
// readiness check on the dependency, which ref names.
func exprCause(rc *RootCause, re *ReadyExpr, controller string, ref func(namespace, name string) string) {
	first := rc.Reason == ""
	if re.Ready == nil {
		if first {
			rc.Reason = ReasonReadyExprUnevaluated
			rc.Message = fmt.Sprintf("the readyExpr of its dependsOn %s cannot be evaluated: %s", re.Dependency, oneLine(re.Expr))
		}
		rc.Explanation = append(rc.Explanation, re.Error)
		return
	}
	if first {
		rc.Reason = ReasonReadyExprFalse
		rc.Message = fmt.Sprintf("the readyExpr of its dependsOn %s is false: %s", re.Dependency, oneLine(re.Expr))
	}
	ns, name := splitID(re.Dependency)
	rc.Explanation = append(rc.Explanation, re.describe()+"; "+controller+" waits until it holds, in place of its own readiness check on "+ref(ns, name))
}

// failsOnHelmReleases records n, a Kustomization whose health check waits only for HelmReleases
// it applies that causes account for (a readyExpr holds them back, a dependency they wait on
// is not Ready or does not exist), as a tier of those causes rather than a cause of its own,
// and reports whether it did.
func (cs *causes) failsOnHelmReleases(n *Node) bool {
	if n.Ready == nil || n.Ready.Reason != meta.HealthCheckFailedReason {
		return false
	}
	named := ParseFailure(n.Ready.Message).Objects
	var hit []*RootCause
	for _, item := range named {
		id := item.Namespace + "/" + item.Name
		e := cs.helm.byID[id]
		if item.Kind != helmReleaseKind || e == nil || e.appliedBy != n.ID {
			return false
		}
		keys := cs.helmHolds(id)
		if len(keys) == 0 && !e.waiting() && (e.Ready == nil || e.Ready.Status != string(metav1.ConditionTrue)) {
			keys = cs.helmBelow(e) // its chart's source, a Secret it needs
		}
		if len(keys) == 0 {
			return false
		}
		for _, k := range keys {
			hit = append(hit, cs.byKey[k])
		}
	}
	for _, rc := range hit {
		if !slices.Contains(rc.Tiers, n.ID) {
			rc.Tiers = append(rc.Tiers, n.ID)
		}
	}
	return len(hit) > 0
}
