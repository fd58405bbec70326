package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// pauseWords, found in the name part of an annotation or label key, say the object is paused,
// suspended or excluded from reconciliation whatever the value, unless the value says no.
var pauseWords = []string{"pause", "suspend", "skip-reconcil", "skipreconcil", "do-not-reconcile", "donotreconcile", "no-reconcile", "disable-reconcil", "reconcile-disabled", "reconciliation-disabled"}

// offValues are values that turn a pause key off (`paused: "false"`).
var offValues = map[string]bool{"false": true, "0": true, "no": true, "off": true, "n": true}

// reconcileOffValues are values that turn reconciliation off when the key names reconciling
// (`kustomize.toolkit.fluxcd.io/reconcile: disabled`).
var reconcileOffValues = map[string]bool{"disabled": true, "disable": true, "false": true, "off": true, "skip": true, "never": true, "paused": true, "no": true, "0": true, "none": true}

// pauseSpecFields are boolean spec fields that pause or suspend an object when true.
var pauseSpecFields = []string{"paused", "pause", "suspend", "suspended"}

// maxOwnerHops bounds the owner chain searched for pause markers.
const maxOwnerHops = 3

// isPauseKey applies the rule to one annotation or label: its key's name part (after the
// prefix) names a pause, a suspension or a skipped reconcile and the value does not say no, or
// it names reconciling and the value turns it off.
func isPauseKey(key, value string) bool {
	name := strings.ToLower(key[strings.LastIndex(key, "/")+1:])
	v := strings.ToLower(strings.TrimSpace(value))
	for _, w := range pauseWords {
		if strings.Contains(name, w) {
			return !offValues[v]
		}
	}
	return strings.Contains(name, "reconcil") && reconcileOffValues[v]
}

// pauseMarkersOf returns the markers on one object: annotations, labels (metadata) and, when the
// body was read, the spec fields.
func pauseMarkersOf(ref ObjectRef, m metav1.Object, body *unstructured.Unstructured) []PauseMarker {
	var out []PauseMarker
	for k, v := range m.GetAnnotations() {
		if isPauseKey(k, v) {
			out = append(out, PauseMarker{Object: ref, Field: "metadata.annotations[" + k + "]", Value: v})
		}
	}
	for k, v := range m.GetLabels() {
		if isPauseKey(k, v) {
			out = append(out, PauseMarker{Object: ref, Field: "metadata.labels[" + k + "]", Value: v})
		}
	}
	if body != nil {
		for _, f := range pauseSpecFields {
			if on, ok, _ := unstructured.NestedBool(body.Object, "spec", f); ok && on {
				out = append(out, PauseMarker{Object: ref, Field: "spec." + f, Value: "true"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// pauseMarkers finds the markers on the object (body, when read) and on its owners, up to
// maxOwnerHops. Owners that cannot be read are returned as gaps.
func (x *Explainer) pauseMarkers(ctx context.Context, o subject, body *unstructured.Unstructured) ([]PauseMarker, []report.Gap) {
	out := pauseMarkersOf(o.ref(), o.obj, body)
	var gaps []report.Gap
	seen := map[string]bool{}
	owners := o.obj.GetOwnerReferences()
	ns := o.obj.GetNamespace()
	for hop := 0; hop < maxOwnerHops && len(owners) > 0; hop++ {
		var next []metav1.OwnerReference
		for _, ref := range owners {
			gv, _ := schema.ParseGroupVersion(ref.APIVersion)
			res, ok := x.resource(gv.Group, ref.Kind)
			if !ok || seen[string(ref.UID)] {
				continue
			}
			seen[string(ref.UID)] = true
			r := refFor(res, ns, ref.Name)
			owner, err := x.ownerObject(ctx, res, ns, ref.Name)
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				gaps = append(gaps, getGap(r.ID(), "reading owner "+r.String()+" for pause markers", err))
				continue
			}
			out = append(out, pauseMarkersOf(r, owner, owner)...)
			next = append(next, owner.GetOwnerReferences()...)
		}
		owners = next
	}
	return out, gaps
}

// applyPause marks every finalizer removed by a controller (one with controller candidates) as
// paused when the object or an owner carries a pause marker: the remover runs but skips the
// object. The way out is to unpause; stripping the finalizer would leak what the controller was
// about to clean up, and its logs say nothing more, so both steps are dropped.
func (x *Explainer) applyPause(ctx context.Context, o subject, e *Explanation, body *unstructured.Unstructured) {
	if !slices.ContainsFunc(e.Finalizers, func(f Finalizer) bool { return len(f.Controllers) > 0 }) {
		return
	}
	markers, gaps := x.pauseMarkers(ctx, o, body)
	e.Unchecked = append(e.Unchecked, gaps...)
	if len(markers) == 0 {
		return
	}
	var steps []Remediation
	for _, m := range markers {
		steps = append(steps, x.unpauseStep(m))
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if len(f.Controllers) == 0 {
			continue
		}
		f.Paused = markers
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool {
			return r.LastResort || r.Code == ReasonStripFinalizer || r.Code == ReasonReadControllerLogs
		})
		f.Remedies = append(slices.Clone(steps), rest...)
	}
	e.Remedies = slices.DeleteFunc(e.Remedies, func(r Remediation) bool { return r.LastResort })
}

// unpauseStep is the exact command that removes one marker: the annotation or label removed,
// the spec field set false.
func (x *Explainer) unpauseStep(m PauseMarker) Remediation {
	r := m.Object
	target := r.QualifiedResource()
	var cmd, what string
	switch {
	case strings.HasPrefix(m.Field, "metadata.annotations["):
		key := strings.TrimSuffix(strings.TrimPrefix(m.Field, "metadata.annotations["), "]")
		cmd, what = x.kubectl(r.Namespace, "annotate", target, r.Name, key+"-"), "remove the annotation "+key
	case strings.HasPrefix(m.Field, "metadata.labels["):
		key := strings.TrimSuffix(strings.TrimPrefix(m.Field, "metadata.labels["), "]")
		cmd, what = x.kubectl(r.Namespace, "label", target, r.Name, key+"-"), "remove the label "+key
	default:
		field := strings.TrimPrefix(m.Field, "spec.")
		cmd, what = x.kubectl(r.Namespace, "patch", target, r.Name, "--type=merge", "-p", fmt.Sprintf(`{"spec":{%q:false}}`, field)), "set "+m.Field+" to false"
	}
	return Remediation{
		Code:    ReasonUnpause,
		Summary: fmt.Sprintf("Unpause %s (%s, now %q): its controller skips paused objects, and removes the finalizer once it reconciles the deletion. Never strip the finalizer instead: that leaks what the controller was about to clean up.", r.String(), what, m.Value),
		Command: cmd,
	}
}
