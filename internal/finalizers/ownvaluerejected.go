package finalizers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// quotedValue finds the values an event message quotes: 'shop_web' or "shop_web".
var quotedValue = regexp.MustCompile(`'([^']{3,})'|"([^"]{3,})"`)

// rejectionWords are what a message says when the value it quotes is not accepted.
var rejectionWords = []string{"invalid", "not valid", "malformed", "must be", "must match", "does not match", "not allowed"}

// lastApplied is kubectl's copy of the whole object, which repeats every value and says nothing
// of its own.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// ownValueRejected returns the value of the object's own that its latest Warning event since the
// deletion quotes as not accepted, and where the object holds it: a message that rejects a
// value (`Invalid value for field 'backendService': 'shop_web'`) which is an annotation's value,
// a string in one (a JSON annotation's `"name":"shop_web"`), or a string field of its spec.
// Annotations are read from the object's metadata (every object's); its spec only when the
// object was read in full (w.obj).
func ownValueRejected(annotations map[string]string, w ownWord, requested time.Time) (value, where string, ev *Event) {
	var last *Event
	for i, e := range w.events {
		if e.Type == corev1.EventTypeWarning && sinceRequest(e.Last, requested) && (last == nil || e.Last.After(last.Last)) {
			last = &w.events[i]
		}
	}
	if last == nil {
		return "", "", nil
	}
	msg := strings.ToLower(last.Message)
	if !slices.ContainsFunc(rejectionWords, func(r string) bool { return strings.Contains(msg, r) }) {
		return "", "", nil
	}
	for _, m := range quotedValue.FindAllStringSubmatch(last.Message, -1) {
		v := m[1] + m[2]
		keys := make([]string, 0, len(annotations))
		for k := range annotations {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if a := annotations[k]; k != lastApplied && (a == v || strings.Contains(a, `"`+v+`"`)) {
				return v, "annotation " + k, last
			}
		}
		if w.obj == nil {
			continue
		}
		spec, _, _ := unstructured.NestedMap(w.obj.Object, "spec")
		if p, ok := findString(spec, v, "spec"); ok {
			return v, p, last
		}
	}
	return "", "", nil
}

// findString returns the path of a string field equal to v, at any depth.
func findString(m map[string]any, v, path string) (string, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch x := m[k].(type) {
		case string:
			if x == v {
				return path + "." + k, true
			}
		case map[string]any:
			if p, ok := findString(x, v, path+"."+k); ok {
				return p, true
			}
		}
	}
	return "", false
}

// applyOwnValueRejected offers, for a finalizer whose running remover keeps failing on a value
// the object itself holds (ownValueRejected: a backend service name the cloud API refuses,
// gke-autoneg-controller#10), the two ways out after the step that quotes the failure: correct
// that value on the object (annotations and spec may still change while it is being deleted),
// after which the controller finishes its cleanup; or, since nothing was ever made with a value
// that was never accepted, remove that one finalizer by hand, with what that leaves.
func (x *Explainer) applyOwnValueRejected(o subject, e *Explanation, w ownWord, requested time.Time) {
	if e.Deleting {
		return
	}
	v, where, ev := ownValueRejected(o.obj.GetAnnotations(), w, requested)
	if ev == nil {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || f.Stalled != nil || f.bypass == nil || slices.ContainsFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer }) {
			continue
		}
		strip := *f.bypass
		strip.Summary = fmt.Sprintf("The value the controller's Warning event %s rejects, %q, is the object's own (%s): it was never accepted, so nothing was made with it. Correct it on the object, where it may still change, and %s finishes its cleanup itself; or, if nothing was made with it, remove finalizer %s by hand. The patch removes only this entry, and the API server refuses it if the list changed since it was read.",
			ev.Reason, v, where, f.Controllers[0].Object.String(), f.Name)
		strip.Cost = fmt.Sprintf("left behind: nothing made with %q, which was never accepted; whatever the controller made for the object with its other settings, if any", v)
		f.Remedies = append(f.Remedies, strip)
	}
}
