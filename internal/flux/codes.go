package flux

import (
	"strings"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/kubeforensics/suite/internal/report"
)

// Reason codes of flux-chain's root causes and findings. RootCause.Reason stays what the
// controller wrote (HealthCheckFailed, BuildFailed, or one of the chain's own reasons above);
// Code is the chain's stable classification of the cause, one of these. Each is documented
// in docs/report.md; TestReasonsDocumented fails when one is added, renamed or removed without
// the table following.
const (
	// Causes a shared object is.
	CodeSourceNotFound         report.Reason = "source-not-found"
	CodeSourceNotReady         report.Reason = "source-not-ready"
	CodeSecretNotFound         report.Reason = "secret-not-found"
	CodeServiceAccountNotFound report.Reason = "serviceaccount-not-found"
	CodeConfigMapNotFound      report.Reason = "configmap-not-found"
	// An object the walk of the object graph ended at that is not a source (a ResourceSet, a
	// FluxInstance), and one it could not read.
	CodeObjectNotReady report.Reason = "object-not-ready"
	CodeObjectUnread   report.Reason = "object-unread"

	// Causes a Kustomization is.
	CodeHealthCheckFailed     report.Reason = "health-check-failed"
	CodeCRDMissing            report.Reason = "crd-missing"
	CodeBuildFailed           report.Reason = "build-failed"
	CodeArtifactFailed        report.Reason = "artifact-failed"
	CodeReconciliationFailed  report.Reason = "reconciliation-failed"
	CodeMissingDependency     report.Reason = "missing-dependency"
	CodeDependencyCycle       report.Reason = "dependency-cycle"
	CodeDependencyRevisionLag report.Reason = "dependency-revision-lag"
	CodeReadyExprFalse        report.Reason = "ready-expr-false"
	CodeReadyExprUnevaluated  report.Reason = "ready-expr-unevaluated"
	CodeSuspendedDependency   report.Reason = "suspended-dependency"
	CodeDependencyTerminating report.Reason = "dependency-terminating"
	CodeNotReady              report.Reason = "not-ready"

	// Causes a HelmRelease is, when helm-controller holds back the HelmReleases whose dependsOn
	// names it.
	CodeHelmReleaseFailed           report.Reason = "helmrelease-failed"
	CodeHelmReleaseNotFound         report.Reason = "helmrelease-dependency-not-found"
	CodeHelmReleaseUnread           report.Reason = "helmrelease-dependency-unread"
	CodeHelmReleaseGenerationBehind report.Reason = "helmrelease-generation-not-observed"
	CodeHelmReleaseNoStatus         report.Reason = "helmrelease-no-status"
	// What helm-controller's conditions say of the release (helmstate.go).
	CodeHelmRetriesExhausted report.Reason = "helmrelease-retries-exhausted"
	CodeHelmReleaseLocked    report.Reason = "helmrelease-locked"
	CodeHelmTestFailed       report.Reason = "helmrelease-test-failed"
	CodeHelmDriftDetected    report.Reason = "helmrelease-drift-detected"

	// The entries of Chain.Progressing: a Kustomization or HelmRelease reconciling within its
	// timeout.
	CodeProgressing            report.Reason = "progressing"
	CodeHelmReleaseProgressing report.Reason = "helmrelease-progressing"

	// Findings besides root causes, one per FindingKind.
	CodeCycleFinding       report.Reason = "cycle"
	CodeMissingDepFinding  report.Reason = "missing-dependency-declared"
	CodeSuspendedFinding   report.Reason = "suspended"
	CodeRevisionLagFinding report.Reason = "revision-lag"
	CodeGenerationLag      report.Reason = "generation-lag"
	CodeMissingSource      report.Reason = "missing-source"
	CodeStaleWait          report.Reason = "stale-wait"
	CodeTerminatingFinding report.Reason = "terminating"
	CodeHelmDriftFinding   report.Reason = "helmrelease-drift"
)

// findingCode is the code of a FindingKind.
func findingCode(k FindingKind) report.Reason {
	switch k {
	case FindingCycle:
		return CodeCycleFinding
	case FindingMissingDependency:
		return CodeMissingDepFinding
	case FindingSuspended:
		return CodeSuspendedFinding
	case FindingRevisionLag:
		return CodeRevisionLagFinding
	case FindingGenerationLag:
		return CodeGenerationLag
	case FindingMissingSource:
		return CodeMissingSource
	case FindingStaleWait:
		return CodeStaleWait
	case FindingTerminating:
		return CodeTerminatingFinding
	case FindingHelmDrift:
		return CodeHelmDriftFinding
	}
	return "" // a kind without a code fails TestEveryFindingKindHasACode
}

// causeCode classifies a finished root cause: the shared object it is, or why its
// Kustomization fails or blocks its dependents.
func causeCode(rc *RootCause) report.Reason {
	if inProgress(rc.Progress) {
		if rc.Object != "" {
			return CodeHelmReleaseProgressing
		}
		return CodeProgressing
	}
	// A HelmRelease held back by its own readyExpr is an Object cause too, classified by its
	// reason like a Kustomization's.
	exprCause := rc.Reason == ReasonReadyExprFalse || rc.Reason == ReasonReadyExprUnevaluated
	if strings.HasPrefix(rc.Object, HelmReleaseGVR.GroupResource().String()+"/") && !exprCause {
		return helmReleaseCode(rc)
	}
	if rc.Object != "" && !exprCause {
		switch {
		case rc.Reason == ReasonDependencyUnread:
			return CodeObjectUnread
		case rc.Reason != ReasonNotFound && operatorObject(rc.Object):
			return CodeObjectNotReady
		case rc.Reason != ReasonNotFound:
			return CodeSourceNotReady
		case strings.HasPrefix(rc.Object, "configmaps/"):
			return CodeConfigMapNotFound
		case strings.HasPrefix(rc.Object, "secrets/"):
			return CodeSecretNotFound
		case strings.HasPrefix(rc.Object, "serviceaccounts/"):
			return CodeServiceAccountNotFound
		}
		return CodeSourceNotFound
	}
	if len(rc.Failure.MissingKinds) > 0 {
		return CodeCRDMissing
	}
	switch rc.Reason {
	case meta.HealthCheckFailedReason:
		return CodeHealthCheckFailed
	case meta.BuildFailedReason:
		return CodeBuildFailed
	case meta.ArtifactFailedReason:
		return CodeArtifactFailed
	case meta.ReconciliationFailedReason:
		return CodeReconciliationFailed
	case ReasonMissingDependency:
		return CodeMissingDependency
	case ReasonDependencyCycle:
		return CodeDependencyCycle
	case ReasonRevisionLag:
		return CodeDependencyRevisionLag
	case ReasonReadyExprFalse:
		return CodeReadyExprFalse
	case ReasonReadyExprUnevaluated:
		return CodeReadyExprUnevaluated
	case meta.SuspendedReason:
		return CodeSuspendedDependency
	case string(Terminating):
		return CodeDependencyTerminating
	}
	return CodeNotReady
}

// helmReleaseCode classifies a cause that is a HelmRelease others wait on (helmdeps.go).
func helmReleaseCode(rc *RootCause) report.Reason {
	for _, hr := range rc.HelmReleases {
		if hr.Deleting {
			return CodeDependencyTerminating
		}
	}
	switch rc.Reason {
	case ReasonNotFound:
		return CodeHelmReleaseNotFound
	case ReasonDependencyUnread:
		return CodeHelmReleaseUnread
	case ReasonGenerationNotObserved:
		return CodeHelmReleaseGenerationBehind
	case ReasonNoStatus:
		return CodeHelmReleaseNoStatus
	case ReasonDependencyCycle:
		return CodeDependencyCycle
	}
	return helmStateCode(rc.HelmReleases, CodeHelmReleaseFailed)
}

// helmStateCode is the code of the first release state among hrs, or otherwise.
func helmStateCode(hrs []HelmRelease, otherwise report.Reason) report.Reason {
	for _, hr := range hrs {
		if hr.Release == nil {
			continue
		}
		switch hr.Release.Kind {
		case ReleaseRetriesExhausted:
			return CodeHelmRetriesExhausted
		case ReleaseLocked:
			return CodeHelmReleaseLocked
		case ReleaseTestFailed:
			return CodeHelmTestFailed
		case ReleaseDriftDetected:
			return CodeHelmDriftDetected
		}
	}
	return otherwise
}

// operatorObject reports whether a cause's object is one of the Flux Operator's (its
// ResourceSets and FluxInstances), not a source.
func operatorObject(ref string) bool {
	res, _, _ := strings.Cut(ref, "/")
	return strings.HasSuffix(res, "."+operatorGroup)
}
