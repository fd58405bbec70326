package retire

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// Facts reads a removed object as it is now: whether it exists, its opt-out annotations (only
// those: never anything that could carry a Secret's value), finalizers, the pods that mount a
// claim with what deleting it loses, what a Namespace or CRD cascades to, and the claims a
// StatefulSet made from its volumeClaimTemplates, with their pods and cost.
func (lc *LiveCluster) Facts(ctx context.Context, r *Removal) *Live {
	l := &Live{Count: -1}
	res, ok := lc.catalog.ForGroupKind(schema.GroupKind{Group: r.Object.Group, Kind: r.Object.Kind})
	if !ok {
		return l // the type is not served, so no object of it exists
	}
	ri := lc.c.Dynamic.Resource(res.GVR())
	var obj *unstructured.Unstructured
	var err error
	if res.Namespaced {
		obj, err = ri.Namespace(r.Object.Namespace).Get(ctx, r.Object.Name, metav1.GetOptions{})
	} else {
		obj, err = ri.Get(ctx, r.Object.Name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return l
	}
	if err != nil {
		l.Incomplete = append(l.Incomplete, readGap(report.OpGet, r.Object.GapID(), fmt.Sprintf("reading %s", r.Object), err))
		return l
	}
	l.Exists = true
	l.Terminating = obj.GetDeletionTimestamp() != nil
	l.Finalizers = obj.GetFinalizers()
	l.Annotations, l.Labels = optOutKeys(obj.GetAnnotations()), optOutKeys(obj.GetLabels())
	if helmjudge.CustomGroup(r.Object.Group) {
		l.object, l.crd = obj, lc.crdOf(ctx, res, l)
	}
	switch r.Object.GroupKind() {
	case "PersistentVolumeClaim":
		var gaps []report.Gap
		l.Consumers, l.Cost, gaps = lc.explainer.ClaimConsumers(ctx, r.Object.Namespace, r.Object.Name)
		l.Incomplete = append(l.Incomplete, gaps...)
	case "Namespace":
		l.Count = lc.namespaceCount(ctx, r.Object.Name, l)
	case "CustomResourceDefinition.apiextensions.k8s.io":
		l.Count = lc.crCount(ctx, obj, l)
	case helmReleaseKind:
		l.Helm = lc.helmReader().Facts(ctx, obj, &l.Incomplete)
	case "StatefulSet.apps":
		if p := statefulSet(obj); p != nil {
			l.Templates = p.Detail
			l.Claims = lc.helmReader().TemplateClaims(ctx, obj, &l.Incomplete)
		}
	}
	return l
}

// crdOf reads the CustomResourceDefinition that serves res, for what customState reads of it
// (deletion-policy defaults); nil when it cannot be read, which is a gap only when the read
// failed (an aggregated API has none).
func (lc *LiveCluster) crdOf(ctx context.Context, res kinds.Resource, l *Live) *unstructured.Unstructured {
	crds := lc.c.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd, err := crds.Get(ctx, res.Resource+"."+res.Group, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		l.Incomplete = append(l.Incomplete, readGap(report.OpGet, report.ObjectID{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Resource: "customresourcedefinitions", Name: res.Resource + "." + res.Group}, "reading the CRD of "+res.QualifiedName(), err))
		return nil
	}
	return crd
}

// optOutKeys keeps the opt-out keys of a live object's annotations or labels, nothing else.
func optOutKeys(m map[string]string) map[string]string {
	out := map[string]string{}
	for _, ex := range []map[string]string{pruneExclusions, resourceSetExclusions} {
		for k := range ex {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// namespaceCount counts every object in the namespace, all types.
func (lc *LiveCluster) namespaceCount(ctx context.Context, ns string, l *Live) int {
	scan := finalizers.ScanScope(ctx, lc.c, lc.catalog, ns)
	n := 0
	for _, t := range scan.Types {
		n += len(t.Items)
	}
	for _, f := range scan.Failed {
		l.Incomplete = append(l.Incomplete, f.Gap(ns, fmt.Sprintf("counting %s in namespace %s", f.Resource, ns)))
	}
	return n
}

// crCount counts the custom resources a CRD serves, in all namespaces.
func (lc *LiveCluster) crCount(ctx context.Context, crd *unstructured.Unstructured, l *Live) int {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	res, ok := lc.catalog.ForGroupKind(schema.GroupKind{Group: group, Kind: kind})
	if !ok {
		return 0
	}
	n, err := kinds.CountObjects(ctx, lc.c.Metadata, res, "")
	if err != nil {
		l.Incomplete = append(l.Incomplete, readGap(report.OpList, report.ObjectID{Group: res.Group, Version: res.Version, Kind: res.Kind, Resource: res.Resource}, "counting "+res.QualifiedName(), err))
		return -1
	}
	return n
}
