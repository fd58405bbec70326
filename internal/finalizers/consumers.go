package finalizers

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// ClaimConsumers names the pods that hold claim namespace/claim the way the pvc-protection
// controller sees it (scheduled pods that mount it), each with its volume, mount paths, owner
// chain and GitOps owner, and says what deleting the claim loses (the bound volume's reclaim
// policy). It works whether or not the claim is Terminating, so a retirement can be checked
// before the prune happens. Reads that failed are returned in incomplete, never as "no pod".
func (x *Explainer) ClaimConsumers(ctx context.Context, namespace, claim string) (blockers []Blocker, cost string, incomplete []report.Gap) {
	res, ok := x.resource("", "PersistentVolumeClaim")
	if !ok {
		res = kinds.Resource{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true}
	}
	var obj metav1.Object = &metav1.ObjectMeta{Namespace: namespace, Name: claim}
	live, err := x.c.Metadata.Resource(res.GVR()).Namespace(namespace).Get(ctx, claim, metav1.GetOptions{})
	found := err == nil
	switch {
	case found:
		obj = live
	case !apierrors.IsNotFound(err):
		incomplete = append(incomplete, getGap(typeID(res, namespace).Named(claim), "reading claim "+namespace+"/"+claim, err))
	}
	pods, err := x.pods(ctx, namespace)
	if err != nil {
		return nil, "", append(incomplete, listGap(typeID(podsResource, namespace), "listing pods in namespace "+namespace, err))
	}
	o := subject{res: res, obj: obj}
	for i := range pods {
		p := &pods[i]
		vol, ok := usesClaim(p, claim, obj)
		if !ok {
			continue
		}
		b, gaps := x.podBlocker(ctx, o, p, vol)
		blockers = append(blockers, b)
		incomplete = append(incomplete, gaps...)
	}
	sortBlockers(blockers)
	if !found {
		return blockers, "", incomplete
	}
	cost, gaps := x.claimCost(ctx, namespace, claim)
	return blockers, cost, append(incomplete, gaps...)
}

// Uncached returns an Explainer for the same cluster with an empty cache, for a check that
// must see the cluster as it is now (a precondition re-read right before acting).
func (x *Explainer) Uncached() *Explainer {
	return New(x.c, x.catalog)
}
