package finalizers

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// Reason codes of why-terminating's findings, one per kind of blocker, finalizer verdict and
// remediation. Each is documented in docs/report.md; TestReasonsDocumented fails when one is
// added, renamed or removed without the table following. A code is never renamed within an
// apiVersion: add a new one instead.
const (
	// Blockers: what concrete object keeps a finalizer in place.
	ReasonPVCProtectionPod          report.Reason = "pvc-protection-pod"
	ReasonPVBoundToClaim            report.Reason = "pv-bound-to-claim"
	ReasonWebhookRejectsDelete      report.Reason = "webhook-rejects-delete"
	ReasonWebhookRejectsUpdate      report.Reason = "webhook-rejects-update"
	ReasonConversionWebhookDown     report.Reason = "conversion-webhook-down"
	ReasonAPIServiceUnavailable     report.Reason = "apiservice-unavailable"
	ReasonCustomResourcesRemaining  report.Reason = "custom-resources-remaining"
	ReasonForegroundDependent       report.Reason = "foreground-dependent"
	ReasonNamedDependent            report.Reason = "named-dependent"
	ReasonNamespaceContentRemaining report.Reason = "namespace-content-remaining"
	ReasonNamespaceContentHeld      report.Reason = "namespace-content-held"
	ReasonPodNotShuttingDown        report.Reason = "pod-not-shutting-down"
	ReasonReferrer                  report.Reason = "referrer"
	ReasonNamedByObject             report.Reason = "named-by-object"
	ReasonMissingObject             report.Reason = "missing-object"
	ReasonReferentTerminating       report.Reason = "referent-terminating"
	ReasonNodeNotReporting          report.Reason = "node-not-reporting"
	ReasonGeneratedClaimInUse       report.Reason = "generated-claim-in-use"
	ReasonCompanionUnfinished       report.Reason = "companion-unfinished"

	// Finalizer verdicts: why the finalizer is still there, one per finalizer.
	ReasonBlockedByObjects       report.Reason = "blocked-by-objects"
	ReasonControllerAbsent       report.Reason = "controller-absent"
	ReasonControllerScaledToZero report.Reason = "controller-scaled-to-zero"
	ReasonControllerUnready      report.Reason = "controller-unready"
	ReasonControllerRunning      report.Reason = "controller-running"
	ReasonWaitingTurn            report.Reason = "waiting-turn"
	ReasonControllerReleasing    report.Reason = "controller-releasing"
	ReasonReadsIncomplete        report.Reason = "reads-incomplete"
	ReasonReconcilePaused        report.Reason = "reconcile-paused"
	ReasonFinalizerOrphaned      report.Reason = "finalizer-orphaned"
	ReasonRemoverStalled         report.Reason = "remover-stalled"

	// Objects without a finalizer left: what their deletion waits for.
	ReasonNoFinalizerLeft   report.Reason = "no-finalizer-left"
	ReasonPodUnread         report.Reason = "pod-unread"
	ReasonPodNeverScheduled report.Reason = "pod-never-scheduled"
	ReasonPodShuttingDown   report.Reason = "pod-shutting-down"
	ReasonPodAwaitsKubelet  report.Reason = "pod-awaits-kubelet"

	// Remediations: the kind of step offered.
	ReasonDeletePod            report.Reason = "delete-pod"
	ReasonDeleteClaim          report.Reason = "delete-claim"
	ReasonReadControllerLogs   report.Reason = "read-controller-logs"
	ReasonRestoreController    report.Reason = "restore-controller"
	ReasonScaleUpController    report.Reason = "scale-up-controller"
	ReasonReinstallController  report.Reason = "reinstall-controller"
	ReasonDeleteWebhookConfig  report.Reason = "delete-webhook-configuration"
	ReasonDeleteAPIService     report.Reason = "delete-apiservice"
	ReasonDisableConversion    report.Reason = "disable-conversion-webhook"
	ReasonStripFinalizer       report.Reason = "strip-finalizer"
	ReasonFinalizeNamespace    report.Reason = "finalize-namespace"
	ReasonForceDeletePod       report.Reason = "force-delete-pod"
	ReasonRerunWithRights      report.Reason = "rerun-with-rights"
	ReasonUnpause              report.Reason = "unpause"
	ReasonRemoveReferrer       report.Reason = "remove-or-repoint-referrer"
	ReasonRestoreMissingObject report.Reason = "restore-missing-object"
	ReasonDeleteInForeground   report.Reason = "delete-in-foreground"
	ReasonOptOutOfCleanup      report.Reason = "opt-out-of-cleanup"
	ReasonFixCompanionWork     report.Reason = "fix-companion-work"
	ReasonFixStatusFailure     report.Reason = "fix-status-failure"
	ReasonFixReportedFailure   report.Reason = "fix-reported-failure"
	ReasonStopRecreating       report.Reason = "stop-recreating-dependent"
)

// finalizerReason is the verdict code of one finalizer, decided from what its explanation
// found, in the order the result's verdict weighs it: a failed read first (the finalizer is
// UNKNOWN), then a proven blocker, then a pause marker its remover obeys, then an orphaned
// finalizer nothing running may remove, then a remover that runs but has stalled on the object, then the state of the controller most likely to remove it
// (the first of Controllers, which are ranked), then objects waiting their turn.
func finalizerReason(f Finalizer) report.Reason {
	switch {
	case len(f.Incomplete) > 0:
		return ReasonReadsIncomplete
	case len(f.Blockers) > 0 && !onlyRemovalRefused(f):
		return ReasonBlockedByObjects
	case len(f.Paused) > 0:
		return ReasonReconcilePaused
	case f.Orphaned:
		return ReasonFinalizerOrphaned
	case f.Stalled != nil:
		return ReasonRemoverStalled
	case len(f.Controllers) > 0:
		return controllerReason(f.Controllers[0])
	case len(f.Waiting) > 0:
		return ReasonWaitingTurn
	}
	return ReasonControllerReleasing
}

// controllerReason is the state of the controller most likely to remove a finalizer: running,
// scaled to zero, installed but not ready, or not installed at all.
func controllerReason(c Controller) report.Reason {
	switch {
	case c.Found && c.Healthy:
		return ReasonControllerRunning
	case c.Found && c.ScaledToZero:
		return ReasonControllerScaledToZero
	case c.Found:
		return ReasonControllerUnready
	}
	return ReasonControllerAbsent
}

// setReasons gives every finalizer of e its verdict code, once everything about it is known.
func setReasons(e *Explanation) {
	for i := range e.Finalizers {
		e.Finalizers[i].Code = finalizerReason(e.Finalizers[i])
	}
}

// webhookReason names the request a fail-closed webhook rejects: the DELETE a controller
// makes, or the UPDATE that removes a finalizer.
func webhookReason(op admissionv1.OperationType) report.Reason {
	if op == admissionv1.Delete {
		return ReasonWebhookRejectsDelete
	}
	return ReasonWebhookRejectsUpdate
}
