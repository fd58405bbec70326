package finalizers

import (
	"context"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// crdCleanup explains customresourcecleanup.apiextensions.k8s.io: the apiextensions API server
// deletes every custom resource of the definition, then removes the finalizer. Custom resources
// that carry finalizers of their own keep it waiting.
func (x *Explainer) crdCleanup(ctx context.Context, o subject) Finalizer {
	f := Finalizer{
		Name:      "customresourcecleanup.apiextensions.k8s.io",
		RemovedBy: "kube-apiserver (apiextensions CRD finalizer)",
		WaitsFor:  "every custom resource of this definition is deleted",
	}
	// A definition being deleted is no longer in discovery; its own spec says what it serves.
	res, err := x.crdResource(ctx, o.obj.GetName())
	if err != nil {
		f.Incomplete = append(f.Incomplete, getGap(o.ref().ID(), "reading customresourcedefinitions.apiextensions.k8s.io/"+o.obj.GetName(), err))
		return f
	}
	// What its custom resources cannot be written without comes first (crdbackends.go).
	backends, fixes, gaps := x.crdBackends(ctx, o.obj.GetName(), res)
	items, err := ListMetadata(ctx, x.c.Metadata, res, "", nil)
	if err != nil {
		f.Blockers, f.Remedies = backends, fixes
		f.Incomplete = append(append(f.Incomplete, gaps...), listGap(typeID(res, ""), "listing "+res.QualifiedName(), err))
		return f
	}
	withFinalizers := 0
	for i := range items {
		it := &items[i]
		b := Blocker{Object: refFor(res, it.Namespace, it.Name), Code: ReasonCustomResourcesRemaining, Reason: "remains", GitOps: gitOpsOwner(it.Labels)}
		if len(it.Finalizers) > 0 {
			withFinalizers++
			b.Reason = "remains, held by finalizers " + strings.Join(it.Finalizers, ", ")
			if it.DeletionTimestamp != nil && o.depth < maxDepth {
				b.Terminating = x.explain(ctx, res, it, o.depth+1)
			}
		}
		f.Blockers = append(f.Blockers, b)
	}
	if len(items) == 0 {
		// Nothing is left to write: what its webhooks would refuse holds nothing.
		backends, fixes = nil, nil
	}
	f.Blockers = append(f.Blockers, backends...)
	sortBlockers(f.Blockers)
	if len(f.Blockers) > 0 {
		f.Unchecked = append(f.Unchecked, gaps...)
	} else {
		f.Incomplete = append(f.Incomplete, gaps...)
	}
	switch {
	case withFinalizers > 0:
		f.Remedies = []Remediation{{Summary: fmt.Sprintf("%d custom resource(s) carry finalizers: their controllers release them, or each one's steps below do; this finalizer goes once they are gone. While this definition is being deleted an install that creates it fails, so a removed controller comes back only through an install that leaves the definition alone.", withFinalizers)}}
	case len(items) > 0:
		f.Remedies = []Remediation{{Summary: "The API server is still deleting the remaining custom resources; it needs no help unless the count stops falling."}}
	default:
		f.Remedies = []Remediation{{Summary: "No custom resource is left; the API server should remove the finalizer shortly."}}
	}
	f.Remedies = append(fixes, f.Remedies...)
	return f
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdResource reads a CustomResourceDefinition and returns the resource it serves, at its
// storage version.
func (x *Explainer) crdResource(ctx context.Context, name string) (kinds.Resource, error) {
	u, err := x.c.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return kinds.Resource{}, err
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd); err != nil {
		return kinds.Resource{}, fmt.Errorf("decoding %s: %w", name, err)
	}
	r := kinds.Resource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural, Kind: crd.Spec.Names.Kind,
		Singular: crd.Spec.Names.Singular, Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			r.Version = v.Name
		}
	}
	return r, nil
}

// DefinitionResource resolves a fully qualified type (`buckets.s3.aws.upbound.io`) from its
// CustomResourceDefinition when discovery no longer lists it: a definition being deleted leaves
// discovery while its custom resources, each waiting on a finalizer, are still there to explain.
func (x *Explainer) DefinitionResource(ctx context.Context, qualified string) (kinds.Resource, bool) {
	if !strings.Contains(qualified, ".") {
		return kinds.Resource{}, false
	}
	r, err := x.crdResource(ctx, qualified)
	return r, err == nil && r.Version != ""
}
