package saferetire

import (
	"context"
	"errors"
	"fmt"
	"sort"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/retire"
)

// liveView is what the live gate read from the cluster: the Kustomizations as gitops builds
// them, their inventories, their dependsOn graph, and the means to examine removed objects.
type liveView struct {
	c              *cluster.Clients
	catalog        *kinds.Catalog
	explainer      *finalizers.Explainer
	objs           *flux.Objects
	chain          *flux.Chain
	kustomizations []gitops.Kustomization
	inventory      map[string][]string
	warnings       []string
}

// readLive lists the Flux Kustomizations (in namespace, "" for all) and discovers the API.
func readLive(ctx context.Context, c *cluster.Clients, namespace string) (*liveView, error) {
	objs, err := flux.Read(ctx, c.Dynamic, namespace)
	if errors.Is(err, flux.ErrNotInstalled) {
		return nil, exitcode.UsageErrorf("%v on %s: is Flux installed? Use --offline to judge the repository alone", err, c.Target)
	}
	if err != nil {
		return nil, cluster.ReadError(c.Target, "listing Kustomizations", err)
	}
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return nil, cluster.ReadError(c.Target, "discovering the API", err)
	}
	lv := &liveView{c: c, catalog: catalog, explainer: finalizers.New(c, catalog), objs: objs, chain: flux.Build(objs), inventory: map[string][]string{}, warnings: objs.Warnings}
	for i := range objs.Kustomizations {
		ks := objs.Kustomizations[i].DeepCopy()
		ks.APIVersion, ks.Kind = kustomizev1.GroupVersion.String(), kustomizev1.KustomizationKind
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ks)
		if err != nil {
			return nil, fmt.Errorf("converting Kustomization %s/%s: %w", ks.Namespace, ks.Name, err)
		}
		decoded, err := gitops.KustomizationsIn([]*unstructured.Unstructured{{Object: m}})
		if err != nil {
			return nil, err
		}
		lv.kustomizations = append(lv.kustomizations, decoded...)
		if inv := ks.Status.Inventory; inv != nil {
			ids := make([]string, 0, len(inv.Entries))
			for _, e := range inv.Entries {
				ids = append(ids, e.ID)
			}
			lv.inventory[ks.Namespace+"/"+ks.Name] = ids
		}
	}
	return lv, nil
}

// substitutionConfigMaps reads the ConfigMaps the Kustomizations' postBuild.substituteFrom
// names, from the cluster, as kustomize-controller does, by "namespace/name". Secrets are never
// read. A ConfigMap that is missing is left out (the build reports what depends on it); one
// that cannot be read makes the result incomplete.
func (lv *liveView) substitutionConfigMaps(ctx context.Context) (map[string]map[string]string, []string) {
	out := map[string]map[string]string{}
	var gaps []string
	for _, ks := range lv.kustomizations {
		if ks.Object == nil {
			continue
		}
		refs, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "postBuild", "substituteFrom")
		for _, ref := range refs {
			m, _ := ref.(map[string]any)
			kind, _ := m["kind"].(string)
			name, _ := m["name"].(string)
			key := ks.Namespace + "/" + name
			if kind != "ConfigMap" || name == "" {
				continue
			}
			if _, done := out[key]; done {
				continue
			}
			cm, err := lv.c.Kube.CoreV1().ConfigMaps(ks.Namespace).Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				gaps = append(gaps, fmt.Sprintf("reading configmaps/%s in namespace %s for Kustomization %s's postBuild.substituteFrom: %s", name, ks.Namespace, ks.ID(), cluster.Reason(err)))
				continue
			}
			data := cm.Data
			if data == nil {
				data = map[string]string{}
			}
			out[key] = data
		}
	}
	return out, gaps
}

// downstream lists every Kustomization that depends on id, directly or not, sorted.
func (lv *liveView) downstream(id string) []string {
	seen := map[string]bool{}
	stack := []string{id}
	for len(stack) > 0 {
		n := lv.chain.Node(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		for _, d := range n.Dependents {
			if !seen[d] && d != id {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// facts reads a removed object as it is now: whether it exists, its opt-out annotations (only
// those: never anything that could carry a Secret's value), finalizers, the pods that mount a
// claim with what deleting it loses, and what a Namespace or CRD cascades to.
func (lv *liveView) facts(ctx context.Context, r *retire.Removal) *retire.Live {
	l := &retire.Live{Count: -1}
	res, ok := lv.catalog.ForGroupKind(schema.GroupKind{Group: r.Object.Group, Kind: r.Object.Kind})
	if !ok {
		return l // the type is not served, so no object of it exists
	}
	ri := lv.c.Dynamic.Resource(res.GVR())
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
		l.Incomplete = append(l.Incomplete, fmt.Sprintf("reading %s: %s", r.Object, cluster.Reason(err)))
		return l
	}
	l.Exists = true
	l.Terminating = obj.GetDeletionTimestamp() != nil
	l.Finalizers = obj.GetFinalizers()
	l.Annotations = optOutAnnotations(obj.GetAnnotations())
	switch r.Object.GroupKind() {
	case "PersistentVolumeClaim":
		var gaps []string
		l.Consumers, l.Cost, gaps = lv.explainer.ClaimConsumers(ctx, r.Object.Namespace, r.Object.Name)
		l.Incomplete = append(l.Incomplete, gaps...)
	case "Namespace":
		l.Count = lv.namespaceCount(ctx, r.Object.Name, l)
	case "CustomResourceDefinition.apiextensions.k8s.io":
		l.Count = lv.crCount(ctx, obj, l)
	}
	return l
}

func optOutAnnotations(ann map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{retire.PruneAnnotation, retire.ReconcileAnnotation, retire.SSAAnnotation} {
		if v, ok := ann[k]; ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// namespaceCount counts every object in the namespace, all types.
func (lv *liveView) namespaceCount(ctx context.Context, ns string, l *retire.Live) int {
	scan := finalizers.ScanScope(ctx, lv.c, lv.catalog, ns)
	n := 0
	for _, t := range scan.Types {
		n += len(t.Items)
	}
	for _, f := range scan.Failed {
		l.Incomplete = append(l.Incomplete, fmt.Sprintf("counting %s in namespace %s: %s", f.Resource, ns, f.Reason))
	}
	return n
}

// crCount counts the custom resources a CRD serves, in all namespaces.
func (lv *liveView) crCount(ctx context.Context, crd *unstructured.Unstructured, l *retire.Live) int {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
	res, ok := lv.catalog.ForGroupKind(schema.GroupKind{Group: group, Kind: kind})
	if !ok {
		return 0
	}
	n, err := kinds.CountObjects(ctx, lv.c.Metadata, res, "")
	if err != nil {
		l.Incomplete = append(l.Incomplete, fmt.Sprintf("counting %s: %s", res.QualifiedName(), cluster.Reason(err)))
		return -1
	}
	return n
}
