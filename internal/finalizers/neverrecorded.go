package finalizers

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// statusNeverWritten reports an object whose status nobody ever wrote: it has no status (or an
// empty one), no condition, and none of its managedFields entries is of the status subresource
// (no controller, no person, ever updated it). Unread managedFields (an object read without them)
// prove nothing and say no.
func statusNeverWritten(w ownWord) bool {
	if w.obj == nil || len(w.conditions) > 0 {
		return false
	}
	if st, ok := w.obj.Object["status"]; ok {
		if m, isMap := st.(map[string]any); !isMap || len(m) > 0 {
			return false
		}
	}
	mf := w.obj.GetManagedFields()
	if len(mf) == 0 {
		return false
	}
	for _, e := range mf {
		if e.Subresource == "status" {
			return false
		}
		if e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"f:status"`) {
			return false
		}
	}
	return true
}

// addedByRemover reports whether the finalizer's first remover is the workload that added it,
// as the finalizer-adder rule found it (its evidence says so).
func addedByRemover(f Finalizer) bool {
	if len(f.Controllers) == 0 {
		return false
	}
	return slices.ContainsFunc(f.Controllers[0].Evidence, func(s string) bool { return strings.HasPrefix(s, "it added the finalizer") })
}

// specName is the name the object's spec gives what it describes outside the cluster
// (`spec.name`), "" when it gives none.
func specName(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	v, _, _ := unstructured.NestedString(obj.Object, "spec", "name")
	return v
}

// applyNeverRecorded turns, for a finalizer whose remover runs and is stalled, the object's
// silence into the way out: the workload that added the finalizer (its managedFields say so)
// never wrote the object's status — no condition, no outside id, no status write by anyone —
// and the object records nothing made outside the cluster. A controller that provisions what an
// object describes records it once made; one that added its finalizer and never recorded
// anything never got past making it, and its cleanup, with nothing recorded to delete, does
// not run. Removing the finalizer by hand is then the way out, first, with the cost said as the
// object shows it: nothing recorded outside; if something was made before the controller failed,
// it is found by the name the spec gives it. Without the adder's evidence, or with any status,
// condition or recorded resource, nothing changes; nor for core objects (a Secret has no status
// to write) or an object without a spec (it describes nothing to make).
func applyNeverRecorded(o subject, e *Explanation, w ownWord) {
	if e.Deleting || o.res.Group == "" || !statusNeverWritten(w) || len(recordedResources(w.obj)) > 0 {
		return
	}
	if _, ok := w.obj.Object["spec"].(map[string]any); !ok {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.Stalled == nil || !removerRuns(*f) || f.bypass == nil || !addedByRemover(*f) || len(f.Blockers) > 0 {
			continue
		}
		remover := f.Controllers[0].Object.String()
		f.Stalled.Evidence = append([]string{"its status was never written: no condition, no outside id, and no field manager ever updated its status, though " + remover + " added " + f.Name}, f.Stalled.Evidence...)
		f.Stalled.LikelyReasons = append([]string{"its controller never got past making what the object describes (it records what it makes, and recorded nothing), so its cleanup has nothing to delete and does not run"}, f.Stalled.LikelyReasons...)
		strip := *f.bypass
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("%s added %s and never wrote the object's status (no condition, no outside id, no status write by anyone since it was created): it never got past making what the object describes, so its cleanup has nothing to delete and will not remove the finalizer. Remove %s by hand. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.",
			remover, f.Name, f.Name)
		strip.Cost = "left behind: nothing the object records outside the cluster (it records no outside id)"
		if n := specName(w.obj); n != "" {
			strip.Cost += fmt.Sprintf("; if the controller made something before it failed, look for it outside by the name spec.name gives, %q", n)
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.LastResort || r.Code == ReasonStripFinalizer })
		f.Remedies = append([]Remediation{strip}, rest...)
	}
}
