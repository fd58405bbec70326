package finalizers

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// partOfReferrerPath is the part-of rule (partOfReference) read the other way, for "who refers
// to me": an object u of a kind built on the stuck object's kind, in its API group, that no
// owner reference or field named for that kind ties to a whole, refers to the stuck object when
// the one spec field that can hold its whole's name holds the stuck object's name, in the stuck
// object's namespace. The path says it is inferred, with its confidence; "" when u does not
// refer to it so. The value equal to the stuck object's own name is what the inference adds to
// the field rule; a referrer is never a reason to strip, so a wrong one costs no leak.
func (x *Explainer) partOfReferrerPath(ctx context.Context, res kinds.Resource, u *unstructured.Unstructured, t refTarget) string {
	if res.Group == "" || res.Group != t.group || (t.namespace != "" && u.GetNamespace() != t.namespace) {
		return ""
	}
	byKind := x.referableKinds(res.Group)
	whole, ok := wholeKind(res, byKind)
	if !ok || whole.Kind != t.kind {
		return ""
	}
	spec, _ := u.Object["spec"].(map[string]any)
	if spec == nil || slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return ownerOfKind(r, whole) }) ||
		slices.ContainsFunc(walkReferences(spec, byKind, u.GetNamespace(), kindFor), func(r outRef) bool { return r.res.GroupKind() == whole.GroupKind() }) {
		return ""
	}
	k, ok := x.wholeField(ctx, res, spec, u.Object["status"], u.GetName())
	if !ok || spec[k] != t.name {
		return ""
	}
	return "spec." + k + " (by inference, " + partOfEvidence(res.Kind, whole.Kind, k) + ")"
}
