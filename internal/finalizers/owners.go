package finalizers

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// ownerChain walks controller ownerReferences from obj up to the top workload
// (Pod → ReplicaSet → Deployment, Pod → Job → CronJob), and returns the chain with the first
// GitOps owner found on the way (Flux labels sit on the object Flux applied, not on its pods).
// An owner that cannot be read ends the chain where it is; the reason is returned.
func (x *Explainer) ownerChain(ctx context.Context, obj metav1.Object) ([]ObjectRef, *GitOpsOwner, []report.Gap) {
	var chain []ObjectRef
	var incomplete []report.Gap
	gitops := gitOpsOwner(obj.GetLabels())
	cur := obj
	for i := 0; i < 5; i++ {
		ref := controllerRef(cur)
		if ref == nil {
			break
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			break
		}
		res, ok := x.resource(gv.Group, ref.Kind)
		if !ok {
			chain = append(chain, ObjectRef{Group: gv.Group, Version: gv.Version, Kind: ref.Kind, Resource: strings.ToLower(ref.Kind), Namespace: cur.GetNamespace(), Name: ref.Name})
			break
		}
		oref := refFor(res, cur.GetNamespace(), ref.Name)
		chain = append(chain, oref)
		owner, err := x.c.Metadata.Resource(res.GVR()).Namespace(oref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			incomplete = append(incomplete, getGap(oref.ID(), "reading owner "+oref.String(), err))
			break
		}
		if gitops == nil {
			gitops = gitOpsOwner(owner.GetLabels())
		}
		cur = owner
	}
	return chain, gitops, incomplete
}

func controllerRef(obj metav1.Object) *metav1.OwnerReference {
	for _, r := range obj.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller {
			r := r
			return &r
		}
	}
	return nil
}

// pods lists the pods of a namespace once per command (typed: the explainers need volumes,
// node and phase, which metadata does not carry).
func (x *Explainer) pods(ctx context.Context, namespace string) ([]corev1.Pod, error) {
	return cached(x, "pods/"+namespace, func() ([]corev1.Pod, error) {
		return pagedList(func(opts metav1.ListOptions) ([]corev1.Pod, string, error) {
			list, err := x.c.Kube.CoreV1().Pods(namespace).List(ctx, opts)
			if err != nil {
				return nil, "", err
			}
			return list.Items, list.Continue, nil
		})
	})
}

// pagedList lists typed objects page by page, 500 a page, until the server has no more.
func pagedList[T any](list func(metav1.ListOptions) ([]T, string, error)) ([]T, error) {
	var out []T
	opts := metav1.ListOptions{Limit: 500}
	for {
		items, next, err := list(opts)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		opts.Continue = next
	}
}

// podRef is the fully qualified reference of a pod.
func (x *Explainer) podRef(p *corev1.Pod) ObjectRef {
	return ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
}

// topWorkload names what recreates a pod: the last element of its owner chain.
func topWorkload(chain []ObjectRef) *ObjectRef {
	if len(chain) == 0 {
		return nil
	}
	return &chain[len(chain)-1]
}
