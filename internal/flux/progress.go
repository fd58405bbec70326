package flux

import (
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A reconciliation in progress, read as the controllers write it. Both mark Ready=Unknown,
// reason Progressing, when they start: kustomize-controller at the start of every
// reconciliation (internal/controller/kustomization_controller.go:325, 186fb3b), helm-controller
// before each release action (internal/reconcile/atomic_release.go:249-:258, 0f61a86). Flux's
// conditions.Set (fluxcd/pkg runtime/conditions/setter.go:45-:71) moves lastTransitionTime only
// when status, reason or message change, so Ready's lastTransitionTime is when that started.

// progressOf returns the progress of a reconciliation that started when Ready turned Unknown
// with reason Progressing, measured against timeout at now; nil when Ready says otherwise.
func progressOf(conds []metav1.Condition, timeout time.Duration, now time.Time) *Progress {
	ready := rawCondition(conds, meta.ReadyCondition)
	if ready == nil || ready.Status != metav1.ConditionUnknown || ready.Reason != meta.ProgressingReason || ready.LastTransitionTime.IsZero() {
		return nil
	}
	since := ready.LastTransitionTime.Time
	msg := ready.Message
	if r := rawCondition(conds, meta.ReconcilingCondition); r != nil && r.Status == metav1.ConditionTrue && r.Message != "" {
		msg = r.Message
	}
	left := since.Add(timeout).Sub(now).Truncate(time.Second)
	p := &Progress{Since: since.UTC().Format(time.RFC3339), Timeout: timeout.String(), Message: msg, Remaining: max(left, 0).String()}
	p.Overdue = left <= 0
	return p
}

// rawCondition is the condition of type t with its times, or nil.
func rawCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// inProgress reports whether p is a reconciliation still within its timeout.
func inProgress(p *Progress) bool { return p != nil && !p.Overdue }
