package finalizers

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// statusFailure is what the object's own status says of its last attempt: a `status.state` or
// `status.phase` that names a failure (FAILED, Error, Degraded) and the message beside it, with
// the field it is read from (msgField); "" when the status records none. The message is
// `status.message`, or else what the status records of its last operation
// (`status.lastOperation`'s `description`, `message` or `operation`, where controllers that
// report by operation write the error they stopped on).
func statusFailure(obj *unstructured.Unstructured) (field, value, msgField, message string) {
	if obj == nil {
		return "", "", "", ""
	}
	msgField, message = statusMessage(obj)
	for _, f := range []string{"state", "phase"} {
		v, ok, _ := unstructured.NestedString(obj.Object, "status", f)
		if ok && failureWord.MatchString(v) {
			return "status." + f, v, msgField, message
		}
	}
	return "", "", "", ""
}

// statusMessage is the message a status records beside its state: `status.message`, else the
// first non-empty of `status.lastOperation.description`, `.message` and `.operation`.
func statusMessage(obj *unstructured.Unstructured) (field, message string) {
	if m, _, _ := unstructured.NestedString(obj.Object, "status", "message"); m != "" {
		return "status.message", m
	}
	for _, k := range []string{"description", "message", "operation"} {
		if m, _, _ := unstructured.NestedString(obj.Object, "status", "lastOperation", k); m != "" {
			return "status.lastOperation." + k, m
		}
	}
	return "", ""
}

// applyStatusFailure reads, for a finalizer whose remover runs and is stalled, what the object's
// own status says of its last attempt: a state or phase that names a failure, with its message
// (`state: FAILED`, "failed to get client for cluster use1"), or a failure condition that is True
// with its message (conditionFailure), is why the controller does not
// finish, and the object already says so. It is quoted first in the stall's evidence and leads
// the steps, before the remover's logs: fix what it names and the controller finishes; when that
// cannot be fixed (what it names is gone for good, or the object was never applied), removing
// the finalizer by hand is the way out, with its cost. A status that names no failure changes
// nothing.
func applyStatusFailure(e *Explanation, w ownWord) {
	said := recordedFailure(w)
	if said == "" {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.Stalled == nil || !removerRuns(*f) {
			continue
		}
		remover := f.Controllers[0].Object.String()
		f.Stalled.Evidence = append([]string{"its own status records a failure: " + said}, f.Stalled.Evidence...)
		f.Stalled.LikelyReasons = append([]string{"its controller fails on this object, as its status says (" + said + ")"}, f.Stalled.LikelyReasons...)
		step := Remediation{Code: ReasonFixStatusFailure, Summary: fmt.Sprintf("%s runs, and the object's own status records why it does not finish: %s. Fix what it names, and %s then removes %s itself; if that cannot be fixed (what it names is gone for good, or the object was never applied), remove %s by hand (below), with its cost.",
			remover, said, remover, f.Name, f.Name)}
		if !slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonFixStatusFailure }) {
			f.Remedies = append([]Remediation{step}, f.Remedies...)
		}
	}
}
