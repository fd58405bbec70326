package finalizers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
)

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
