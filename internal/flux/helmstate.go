package flux

// What helm-controller's conditions say of a HelmRelease's Helm release beyond Ready, read as
// helm-controller writes them (github.com/fluxcd/helm-controller, 0f61a86):
//
//   - internal/reconcile/atomic_release.go:205 and :305 — when the install or upgrade retries of
//     the active remediation are exhausted it marks Stalled=True, reason RetriesExceeded,
//     "Failed to <action> after <n> attempt(s)", and stops: actionForState (:370-:400) returns
//     ErrExceededMaxRetries for an absent or out-of-sync release until a force request
//     (reconcile.fluxcd.io/forceAt) or a reset of the failure counts (a spec, chart or values
//     change: helmrelease_controller.go:390-:394, or reconcile.fluxcd.io/resetAt).
//   - internal/reconcile/unlock.go:104-:139 — a release left pending-install, pending-upgrade or
//     pending-rollback is unlocked first; a failed unlock marks Released=False, reason
//     PendingRelease, "Unlock of Helm release … in <status> state failed: …". helm-controller
//     before v1 (v2beta1 API) failed with Helm's own "another operation
//     (install/upgrade/rollback) is in progress" instead (fluxcd/helm-controller#149).
//   - internal/reconcile/atomic_release.go:441-:446 — Drifted=True, reason DriftDetected, when the
//     cluster state differs from the release; with drift detection "enabled" it is corrected,
//     with "warn" it stays.
//   - internal/reconcile/test.go:141 — TestSuccess=False, reason TestFailed.
//   - internal/reconcile/atomic_release.go:249-:258 — before a release action it marks
//     Reconciling=True and Ready=Unknown, reason Progressing, "Running '<action>' action with
//     timeout of <t>": Ready's lastTransitionTime is when the action started.

import (
	"fmt"
	"regexp"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/cluster"
)

// The states of a Helm release helm-controller's conditions name (ReleaseState.Kind).
const (
	// ReleaseRetriesExhausted: Stalled=True RetriesExceeded; helm-controller does not try again
	// by itself.
	ReleaseRetriesExhausted = "RetriesExhausted"
	// ReleaseLocked: the release is held by a pending-install, pending-upgrade or
	// pending-rollback operation that was never finished.
	ReleaseLocked = "Locked"
	// ReleaseDriftDetected: the cluster state drifted from the release.
	ReleaseDriftDetected = "DriftDetected"
	// ReleaseTestFailed: the release's Helm tests failed.
	ReleaseTestFailed = "TestFailed"
)

// Reasons helm-controller writes that its API package does not export as constants.
const (
	reasonRetriesExceeded = "RetriesExceeded"
	reasonPendingRelease  = "PendingRelease"
)

// helmLockMessage is Helm's error for a release another operation holds.
const helmLockMessage = "another operation (install/upgrade/rollback) is in progress"

// pendingStatus finds the pending-* status a lock message names.
var pendingStatus = regexp.MustCompile(`pending-(install|upgrade|rollback)`)

// ReleaseState is what helm-controller says of a HelmRelease's Helm release beyond Ready.
type ReleaseState struct {
	Kind string `json:"kind"`
	// Action is the release action that failed (install, upgrade); Failures how many times,
	// against the current spec.
	Action   string `json:"action,omitempty"`
	Failures int64  `json:"failures,omitempty"`
	// Remediation is the remediation helm-controller took (its Remediated condition: reason
	// and message), for retries exhausted.
	Remediation string `json:"remediation,omitempty"`
	// Pending is the pending-* status of a locked release, when the message names it.
	Pending string `json:"pending,omitempty"`
	// Message says what it means and what restarts or clears it.
	Message string `json:"message"`
}

// readHelmState copies helm-controller's conditions and counters onto h and reads the release
// state they describe.
func readHelmState(h *HelmRelease, hr *helmv2.HelmRelease) {
	conds := hr.Status.Conditions
	h.Stalled = condition(conds, meta.StalledCondition)
	h.Released = condition(conds, helmv2.ReleasedCondition)
	h.Remediated = condition(conds, helmv2.RemediatedCondition)
	h.TestSuccess = condition(conds, helmv2.TestSuccessCondition)
	h.Drifted = condition(conds, helmv2.DriftedCondition)
	h.LastAction = string(hr.Status.LastAttemptedReleaseAction)
	h.InstallFailures, h.UpgradeFailures = hr.Status.InstallFailures, hr.Status.UpgradeFailures
	h.releaseName, h.storageNamespace = hr.GetReleaseName(), hr.GetStorageNamespace()
	if kc := hr.Spec.KubeConfig; kc != nil {
		switch {
		case kc.SecretRef != nil && kc.SecretRef.Name != "":
			h.remote = "kubeConfig Secret " + hr.Namespace + "/" + kc.SecretRef.Name
		case kc.ConfigMapRef != nil && kc.ConfigMapRef.Name != "":
			h.remote = "kubeConfig ConfigMap " + hr.Namespace + "/" + kc.ConfigMapRef.Name
		}
	}
	h.Release = releaseState(h)
}

// releaseState classifies h's conditions; nil when they say nothing beyond Ready.
func releaseState(h *HelmRelease) *ReleaseState {
	isTrue := func(c *Condition) bool { return c != nil && c.Status == string(metav1.ConditionTrue) }
	isFalse := func(c *Condition) bool { return c != nil && c.Status == string(metav1.ConditionFalse) }
	switch {
	case isTrue(h.Stalled) && h.Stalled.Reason == reasonRetriesExceeded:
		return retriesExhausted(h)
	case locked(h) != "":
		pending := locked(h)
		if pending == "?" {
			pending = ""
		}
		return &ReleaseState{Kind: ReleaseLocked, Pending: pending,
			Message: fmt.Sprintf("the Helm release %s is locked by a %s operation that never finished: helm-controller cannot install, upgrade or roll it back until the release's pending storage Secret is removed (or rolled back)%s", h.releaseName, orA(pending, "pending"), remoteStorage(h))}
	case isFalse(h.TestSuccess) && h.TestSuccess.Reason == helmv2.TestFailedReason:
		return &ReleaseState{Kind: ReleaseTestFailed, Message: "the release's Helm tests failed: " + h.TestSuccess.Message}
	case isTrue(h.Drifted) && h.Drifted.Reason == helmv2.DriftDetectedReason:
		return &ReleaseState{Kind: ReleaseDriftDetected, Message: "the cluster state drifted from the release: " + h.Drifted.Message}
	}
	return nil
}

// retriesExhausted is the state of a release whose remediation retries are used up.
func retriesExhausted(h *HelmRelease) *ReleaseState {
	st := &ReleaseState{Kind: ReleaseRetriesExhausted, Action: h.LastAction}
	switch h.LastAction {
	case string(helmv2.ReleaseActionInstall):
		st.Failures = h.InstallFailures
	case string(helmv2.ReleaseActionUpgrade):
		st.Failures = h.UpgradeFailures
	}
	if h.Remediated != nil {
		st.Remediation = h.Remediated.Reason + ": " + h.Remediated.Message
	}
	action := orA(st.Action, "install or upgrade")
	st.Message = fmt.Sprintf("%s retries exhausted (%s): helm-controller will not %s again until the spec, chart or values change, a reconcile is forced (flux reconcile helmrelease --force) or its failure counts are reset (--reset)",
		action, h.Stalled.Message, action)
	if st.Remediation != "" {
		st.Message += "; remediation taken: " + st.Remediation
	}
	return st
}

// locked returns the pending-* status a lock message names ("?" when it names none), or "" when
// h's conditions do not say the release is locked.
func locked(h *HelmRelease) string {
	var msgs []string
	if h.Released != nil && h.Released.Status == string(metav1.ConditionFalse) && h.Released.Reason == reasonPendingRelease &&
		strings.HasPrefix(h.Released.Message, "Unlock of") {
		msgs = append(msgs, h.Released.Message)
	}
	for _, c := range []*Condition{h.Ready, h.Released} {
		if c != nil && c.Status != string(metav1.ConditionTrue) && strings.Contains(c.Message, helmLockMessage) {
			msgs = append(msgs, c.Message)
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	for _, m := range msgs {
		if p := pendingStatus.FindString(m); p != "" {
			return p
		}
	}
	return "?"
}

// orA is s, or alt when s is empty.
func orA(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// releaseCommands are the commands that restart or clear what hr's release state says stops
// helm-controller, against t: a forced reconcile or a reset of the failure counts for retries
// exhausted (the flux CLI takes kubectl's connection flags), the deletion of the pending
// storage Secret and then a forced reconcile for a lock. Every word is shell-quoted.
func releaseCommands(t cluster.Target, hr HelmRelease) []string {
	if hr.Release == nil {
		return nil
	}
	flux := func(args ...string) string {
		return cluster.Quote(append([]string{"flux", "reconcile", "helmrelease", hr.Name, "-n", hr.Namespace}, args...)...) + " " + t.Flag()
	}
	switch hr.Release.Kind {
	case ReleaseRetriesExhausted:
		return []string{flux("--force"), flux("--reset")}
	case ReleaseLocked:
		status := "status in (pending-install,pending-upgrade,pending-rollback)"
		if hr.Release.Pending != "" {
			status = "status=" + hr.Release.Pending
		}
		// Helm's storage Secrets carry owner=helm, name=<release> and status=<status>: deleting
		// the pending one leaves the last deployed revision the latest, and unlocks the release.
		// With its own spec.kubeConfig the release, and so that Secret, is on the cluster it
		// reaches: a Secret of the same name here is another release's.
		on := t
		if hr.remote != "" {
			on = cluster.Remote()
		}
		return []string{on.Command("delete", "secret", "-n", hr.storageNamespace, "-l", "owner=helm,name="+hr.releaseName+","+status), flux("--force")}
	}
	return nil
}

// remoteStorage says where the storage Secret of h's release is when its own spec.kubeConfig
// installs it on another cluster: the command that removes it carries
// --kubeconfig=REMOTE_KUBECONFIG, a placeholder for a kubeconfig of that cluster.
func remoteStorage(h *HelmRelease) string {
	if h.remote == "" {
		return ""
	}
	return fmt.Sprintf("; that Secret is on the cluster its spec.kubeConfig (%s) reaches, not on this one: the command that removes it carries --kubeconfig=%s, which you fill in with a kubeconfig of that cluster", h.remote, cluster.RemotePlaceholder)
}
