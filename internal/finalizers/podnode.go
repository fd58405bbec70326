package finalizers

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// refSpec is the stuck object's spec as read for the references it makes: the full body read
// for its word, or a Pod's (podSpecForRefs); nil when there is none.
func (x *Explainer) refSpec(ctx context.Context, o subject, w ownWord) (map[string]any, report.Gap) {
	if w.obj != nil {
		spec, _ := w.obj.Object["spec"].(map[string]any)
		return spec, report.Gap{}
	}
	return x.podSpecForRefs(ctx, o)
}

// kindFor resolves the base of a reference field (`policyServer`, `cluster` of `clusterRef`) to
// a kind of byKind: the kind of that name, or else the one kind whose name ends with it (a
// `clusterRef` in a group whose one cluster kind is `KafkaCluster`); false when none or several
// do, or the base is too short to say. A missing object found through a loose match is
// claimed with the inference stated (looseDangling).
func kindFor(base string, byKind map[string]kinds.Resource) (kinds.Resource, bool) {
	if base == "" {
		return kinds.Resource{}, false
	}
	if r, ok := byKind[base]; ok {
		return r, true
	}
	if len(base) < 4 {
		return kinds.Resource{}, false
	}
	var found []kinds.Resource
	for k, r := range byKind {
		if strings.HasSuffix(k, base) {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		return kinds.Resource{}, false
	}
	return found[0], true
}

// podSpecForRefs returns the spec of a stuck core Pod for the references it makes (its
// nodeName): core objects are not read in full for their word (readsStatus), but a pod whose
// finalizer a per-node agent removes can only be finished on the node its spec names. One read,
// only for a Pod; nil with no gap when the object is no Pod, or is gone.
func (x *Explainer) podSpecForRefs(ctx context.Context, o subject) (map[string]any, report.Gap) {
	if o.res.Group != "" || o.res.Resource != "pods" {
		return nil, report.Gap{}
	}
	pod, err := x.c.Kube.CoreV1().Pods(o.obj.GetNamespace()).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, report.Gap{}
		}
		return nil, getGap(o.ref().ID(), "reading the spec of "+o.ref().String(), err)
	}
	if pod.Spec.NodeName == "" {
		return nil, report.Gap{}
	}
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pod.Spec)
	if err != nil {
		return nil, getGap(o.ref().ID(), "reading the spec of "+o.ref().String(), err)
	}
	return spec, report.Gap{}
}
