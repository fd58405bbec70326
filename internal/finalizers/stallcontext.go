package finalizers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// stallContext is what the cluster shows around a stalled remover that makes one likely reason
// the likeliest, read from the object's surroundings rather than from any product:
//
//   - an owner the object's ownerReferences name that no longer exists (gone, or replaced by a
//     new object of the same name): a controller that removes the finalizer while it finalizes
//     that owner never will now;
//   - the object's namespace being deleted: the API server refuses every new object in it,
//     events included, so a cleanup that has to create a Job, a Pod or anything else there can
//     never run, and its failures leave no event.
//
// note is added to the strip step, naming what the strip is for; gaps are reads that failed
// (they cannot change the stalled verdict, only its reasons).
func (x *Explainer) stallContext(ctx context.Context, o subject, remover ObjectRef) (evidence, reasons []string, note string, gaps []report.Gap) {
	if gone, why, gap := x.goneOwner(ctx, o); gap != (report.Gap{}) {
		gaps = append(gaps, gap)
	} else if gone != nil && x.ownerBlocks(ctx, o, remover) {
		evidence = append(evidence, fmt.Sprintf("its owner %s %s", gone.String(), why))
		reasons = append(reasons, fmt.Sprintf("it belongs to %s, which %s: a controller that removes this finalizer while it finalizes that owner never will now", gone.String(), why))
		note = fmt.Sprintf(" Its owner %s %s, so nothing will finalize it through that owner.", gone.String(), why)
	}
	if ns := o.obj.GetNamespace(); ns != "" {
		if since, _ := x.namespaceGoing(ctx, ns, &gaps); since != nil {
			evidence = append(evidence, fmt.Sprintf("its namespace namespaces/%s is being deleted (since %s): the API server refuses every new object in it, events included, so the remover's failures there leave no event", ns, since.Format(time.RFC3339)))
			reasons = append(reasons, fmt.Sprintf("its cleanup has to create something in namespaces/%s (a Job, a Pod, a Secret), which the API server refuses while the namespace is being deleted: it can never run there", ns))
			note += fmt.Sprintf(" Its namespace namespaces/%s is being deleted, and refuses whatever the cleanup would create there.", ns)
		}
	}
	return evidence, reasons, note, gaps
}

// goneOwner returns the first owner the object's ownerReferences name that no longer exists,
// with how it is gone: not found, replaced by another object of the same name (another UID), or
// of a type the server no longer serves. A failed read is returned as a gap.
func (x *Explainer) goneOwner(ctx context.Context, o subject) (*ObjectRef, string, report.Gap) {
	for _, r := range o.obj.GetOwnerReferences() {
		gv, err := schema.ParseGroupVersion(r.APIVersion)
		if err != nil {
			continue
		}
		res, ok := x.resource(gv.Group, r.Kind)
		if !ok {
			ref := ObjectRef{Group: gv.Group, Version: gv.Version, Kind: r.Kind, Resource: r.Kind, Namespace: o.obj.GetNamespace(), Name: r.Name}
			return &ref, "no longer exists (the server does not serve its type " + r.Kind + "." + gv.Group + ")", report.Gap{}
		}
		ref := refFor(res, o.obj.GetNamespace(), r.Name)
		owner, err := x.c.Metadata.Resource(res.GVR()).Namespace(ref.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return &ref, "no longer exists", report.Gap{}
		case err != nil:
			return nil, "", getGap(ref.ID(), "reading owner "+ref.String(), err)
		case owner.GetUID() != r.UID:
			return &ref, fmt.Sprintf("no longer exists (an object of that name with another uid, %s, replaced it)", owner.GetUID()), report.Gap{}
		}
	}
	return nil, "", report.Gap{}
}

// namespaceDeleted returns when the namespace's deletion was requested, nil when it is not
// being deleted; a failed read is returned as a gap. In a cluster-wide sweep the namespace is
// taken from the sweep's own LIST of namespaces, not read again.
func (x *Explainer) namespaceDeleted(ctx context.Context, name string) (*time.Time, report.Gap) {
	if t, ok := x.sweptNamespaceDeleted(ctx, name); ok {
		return t, report.Gap{}
	}
	ns, err := cached(x, "namespace/"+name, func() (*corev1.Namespace, error) {
		return x.c.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	})
	if err != nil {
		return nil, getGap(objectID("", "v1", "namespaces", "", name), "reading namespaces/"+name+" to see whether it is being deleted", err)
	}
	if ns.DeletionTimestamp == nil {
		return nil, report.Gap{}
	}
	t := ns.DeletionTimestamp.UTC()
	return &t, report.Gap{}
}
