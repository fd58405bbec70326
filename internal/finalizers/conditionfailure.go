package finalizers

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// conditionFailure is what the object's own conditions say of its controller's last attempt: a
// condition whose type names a failure (`Failed`, `Error`, `Degraded`) that is True, with its
// reason and message (`condition Failed True (DeleteFailed): "ServiceBinding deletion failed:
// ... StatusCode: 401"`); "" when no such condition carries a message. A Ready-like condition
// that is False says less (a dependency not yet there, a rollout under way) and is left to the
// stall's evidence.
func conditionFailure(cs []Condition) string {
	for _, c := range cs {
		if c.Status != string(corev1.ConditionTrue) || !failureWord.MatchString(c.Type) || strings.TrimSpace(c.Message) == "" {
			continue
		}
		msg := c.Message
		msg = clip(msg, maxFailureMessage)
		if c.Reason != "" {
			return fmt.Sprintf("condition %s True (%s): %q", c.Type, c.Reason, msg)
		}
		return fmt.Sprintf("condition %s True: %q", c.Type, msg)
	}
	return ""
}

// recordedFailure is what the object's own status records of its controller's last attempt: a
// failed `status.state` or `status.phase` with its message (statusFailure), else a failure
// condition (conditionFailure); "" when it records none.
func recordedFailure(w ownWord) string {
	field, value, msgField, message := statusFailure(w.obj)
	if field != "" {
		said := fmt.Sprintf("%s %s", field, value)
		if message != "" {
			message = clip(message, maxFailureMessage)
			said += fmt.Sprintf(", %s %q", msgField, message)
		}
		return said
	}
	return conditionFailure(w.conditions)
}

// failureBesideReferents reports whether the object's own status records a failure (recordedFailure)
// that names none of the referents being deleted (their names, as the failure's text would carry
// them): the controller says why its cleanup fails, and it is not what goes with them. A
// referent still being deleted, which may itself wait for this very object (an instance that
// keeps its finalizer while a binding refers to it), is then context, not the cause.
func failureBesideReferents(w ownWord, going []goingReferent) bool {
	said := recordedFailure(w)
	if said == "" {
		return false
	}
	for _, g := range going {
		if strings.Contains(said, g.ref.Name) {
			return false
		}
	}
	return true
}
