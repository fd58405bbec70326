package flux

// The references of each kind of the object graph, by field, as the Flux APIs define them
// (kustomize.toolkit.fluxcd.io/v1, helm.toolkit.fluxcd.io/v2, source.toolkit.fluxcd.io/v1,
// source.extensions.fluxcd.io/v1beta1, fluxcd.controlplane.io/v1). A reference without a
// namespace is to the referring object's own.

import (
	"cmp"
	"context"
	"fmt"
	"github.com/fluxcd/cli-utils/pkg/object"
	"maps"
	"slices"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"

	"github.com/kubeforensics/suite/internal/report"
)

// Kinds of the graph that are not sources of Kustomizations.
const (
	helmChartKind         = sourcev1.HelmChartKind
	helmRepositoryKind    = sourcev1.HelmRepositoryKind
	externalArtifactKind  = sourcev1.ExternalArtifactKind
	artifactGeneratorKind = "ArtifactGenerator"
	resourceSetKind       = "ResourceSet"
	fluxInstanceKind      = "FluxInstance"
	kustomizationKind     = "Kustomization"
)

// operatorGroup is the Flux Operator's API group.
const operatorGroup = "fluxcd.controlplane.io"

// ExtraGVRs are the kinds of the graph Read lists besides Kustomizations, HelmReleases and
// SourceGVRs: what HelmReleases and ExternalArtifacts build from, and the Flux Operator's
// objects, whose inventories hold the Flux objects they apply.
var ExtraGVRs = map[string]schema.GroupVersionResource{
	helmChartKind:         sourcev1.GroupVersion.WithResource("helmcharts"),
	helmRepositoryKind:    sourcev1.GroupVersion.WithResource("helmrepositories"),
	externalArtifactKind:  sourcev1.GroupVersion.WithResource("externalartifacts"),
	artifactGeneratorKind: {Group: "source.extensions.fluxcd.io", Version: "v1beta1", Resource: "artifactgenerators"},
	resourceSetKind:       {Group: operatorGroup, Version: "v1", Resource: "resourcesets"},
	fluxInstanceKind:      {Group: operatorGroup, Version: "v1", Resource: "fluxinstances"},
}

// graphResources maps every kind of the graph to its resource.
var graphResources = func() map[string]schema.GroupVersionResource {
	out := map[string]schema.GroupVersionResource{kustomizationKind: KustomizationGVR, helmReleaseKind: HelmReleaseGVR}
	for k, v := range SourceGVRs {
		out[k] = v
	}
	for k, v := range ExtraGVRs {
		out[k] = v
	}
	return out
}()

// leafKinds are the kinds the graph's objects name that the chain does not list: it reads
// only the metadata of the ones a not-Ready object names (never a Secret's data).
var leafKinds = map[string]schema.GroupVersionResource{
	"Secret":         {Version: "v1", Resource: "secrets"},
	"ServiceAccount": {Version: "v1", Resource: "serviceaccounts"},
	"ConfigMap":      {Version: "v1", Resource: "configmaps"},
}

// refsOf reads the references of an object of kind.
func refsOf(kind string, u *unstructured.Unstructured) []gref {
	ns := u.GetNamespace()
	var out []gref
	add := func(kind, namespace, name, field string) {
		if kind != "" && name != "" {
			out = append(out, gref{kind: kind, namespace: cmp.Or(namespace, ns), name: name, field: field})
		}
	}
	ref := func(defaultKind string, path ...string) {
		m, _, _ := unstructured.NestedMap(u.Object, path...)
		add(cmp.Or(str(m, "kind"), defaultKind), str(m, "namespace"), str(m, "name"), strings.Join(path, "."))
	}
	secret := func(path ...string) {
		name, _, _ := unstructured.NestedString(u.Object, append(path, "name")...)
		add("Secret", "", name, strings.Join(path, "."))
	}
	serviceAccount := func() {
		name, _, _ := unstructured.NestedString(u.Object, "spec", "serviceAccountName")
		add("ServiceAccount", "", name, "spec.serviceAccountName")
	}
	list := func(path ...string) []map[string]any {
		items, _, _ := unstructured.NestedSlice(u.Object, path...)
		var ms []map[string]any
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				ms = append(ms, m)
			}
		}
		return ms
	}
	switch kind {
	case kustomizationKind:
		ref("", "spec", "sourceRef")
		secret("spec", "decryption", "secretRef")
		secret("spec", "kubeConfig", "secretRef")
		serviceAccount()
		for _, m := range list("spec", "postBuild", "substituteFrom") {
			if opt, _ := m["optional"].(bool); !opt {
				add(str(m, "kind"), "", str(m, "name"), "spec.postBuild.substituteFrom")
			}
		}
		for _, m := range list("spec", "healthChecks") {
			add(str(m, "kind"), str(m, "namespace"), str(m, "name"), "spec.healthChecks")
		}
		out = append(out, inventoryRefs(u)...)
		out = append(out, healthCheckRefs(u)...)
	case helmReleaseKind:
		out = append(out, chartRefs(u)...)
		secret("spec", "kubeConfig", "secretRef")
		serviceAccount()
		for _, m := range list("spec", "valuesFrom") {
			if opt, _ := m["optional"].(bool); !opt {
				add(str(m, "kind"), "", str(m, "name"), "spec.valuesFrom")
			}
		}
	case helmChartKind:
		ref("", "spec", "sourceRef")
		secret("spec", "verify", "secretRef")
	case externalArtifactKind:
		ref("", "spec", "sourceRef")
	case artifactGeneratorKind:
		for _, m := range list("spec", "sources") {
			add(str(m, "kind"), str(m, "namespace"), str(m, "name"), "spec.sources")
		}
	case resourceSetKind, fluxInstanceKind:
		serviceAccount()
		out = append(out, inventoryRefs(u)...)
		// A ResourceSet is not reconciled until what its spec.dependsOn names exists (and is
		// Ready, with ready: true); the operator says so with reason DependencyNotReady.
		if kind == resourceSetKind {
			for _, m := range list("spec", "dependsOn") {
				add(str(m, "kind"), str(m, "namespace"), str(m, "name"), dependsOnField)
			}
		}
	default: // the sources
		secret("spec", "secretRef")
		secret("spec", "certSecretRef")
		secret("spec", "proxySecretRef")
		secret("spec", "verify", "secretRef")
		serviceAccount()
	}
	return out
}

// chartRefs is what a HelmRelease builds from: spec.chartRef, else the HelmChart helm-controller
// generates for spec.chart, named in status.helmChart (`<namespace>/<name>`) or, before it
// wrote that, `<namespace>-<name>` in its sourceRef's namespace (helmv2.HelmRelease
// GetHelmChartName, HelmChartTemplate.GetNamespace).
func chartRefs(u *unstructured.Unstructured) []gref {
	var hr helmv2.HelmRelease
	hr.Namespace, hr.Name = u.GetNamespace(), u.GetName()
	if m, ok, _ := unstructured.NestedMap(u.Object, "spec", "chartRef"); ok {
		return []gref{{kind: str(m, "kind"), namespace: cmp.Or(str(m, "namespace"), hr.Namespace), name: str(m, "name"), field: "spec.chartRef"}}
	}
	if s, _, _ := unstructured.NestedString(u.Object, "status", "helmChart"); s != "" {
		ns, name, _ := strings.Cut(s, "/")
		return []gref{{kind: helmChartKind, namespace: ns, name: name, field: "status.helmChart"}}
	}
	if _, ok, _ := unstructured.NestedMap(u.Object, "spec", "chart"); !ok {
		return nil
	}
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "chart", "spec", "sourceRef", "namespace")
	return []gref{{kind: helmChartKind, namespace: cmp.Or(ns, hr.Namespace), name: hr.GetHelmChartName(), field: "status.helmChart"}}
}

// inventoryRefs are the objects of the graph's kinds in an object's status.inventory: what a
// Kustomization with wait or a ResourceSet waits for when its health check fails.
func inventoryRefs(u *unstructured.Unstructured) []gref {
	entries, _, _ := unstructured.NestedSlice(u.Object, "status", "inventory", "entries")
	var out []gref
	for _, e := range entries {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		id, err := object.ParseObjMetadata(str(m, "id"))
		if err != nil {
			continue
		}
		gvr, known := graphResources[id.GroupKind.Kind]
		if !known || gvr.Group != id.GroupKind.Group {
			continue
		}
		out = append(out, gref{kind: id.GroupKind.Kind, namespace: id.Namespace, name: id.Name, field: "status.inventory"})
	}
	return out
}

// FetchReferences reads what the walk of the graph needs and the LISTs did not give: each
// Secret, ServiceAccount and ConfigMap a not-Ready object waits on, by its metadata alone (a
// Secret's data is never read), and each object of the graph's kinds it waits on in a namespace
// that was not listed, until nothing more is named. A reference that does not exist is recorded
// as missing (a cause); a read that fails is a warning, and what rests on it is UNKNOWN.
func (objs *Objects) FetchReferences(ctx context.Context, dyn dynamic.Interface, md metadata.Interface) {
	if objs.fetched == nil {
		objs.fetched = map[string]string{}
	}
	if objs.leaves == nil {
		objs.leaves = map[string]bool{}
	}
	done := map[string]bool{}
	for again := true; again; {
		again = false
		for _, key := range slices.Sorted(maps.Keys(objs.graph)) {
			o := objs.graph[key]
			if !o.notReady() {
				continue
			}
			for _, r := range o.refs {
				k := r.key()
				if done[k] || !o.waitsOn(r) || objs.graph[k] != nil {
					continue
				}
				done[k] = true
				if gvr, leaf := leafKinds[r.kind]; leaf && md != nil {
					objs.fetchLeaf(ctx, md, gvr, r)
					continue
				}
				gvr, known := graphResources[r.kind]
				if !known || objs.unread[r.kind] || objs.namespace == "" || r.namespace == objs.namespace {
					continue // listed already: absent means missing
				}
				if _, ok := objs.fetched[k]; !ok {
					again = objs.fetch(ctx, dyn, gvr, r.kind, r.namespace, r.name) || again
				}
			}
		}
	}
}

// fetchLeaf reads the metadata of one Secret, ServiceAccount or ConfigMap.
func (objs *Objects) fetchLeaf(ctx context.Context, md metadata.Interface, gvr schema.GroupVersionResource, r gref) {
	_, err := md.Resource(gvr).Namespace(r.namespace).Get(ctx, r.name, metav1.GetOptions{})
	switch {
	case err == nil:
		objs.leaves[r.key()] = true
	case apierrors.IsNotFound(err):
		objs.fetched[r.key()] = ""
	default:
		objs.fetched[r.key()] = fmt.Sprintf("reading it failed: %v", err)
		objs.addGap(report.OpGet, gvrID(gvr, r.namespace, r.name), fmt.Sprintf("reading %s %s/%s", gvr.Resource, r.namespace, r.name), err)
	}
}

// healthCheckRefs are the objects a Kustomization's failed health check names in its Ready
// message (kustomize-controller's "timeout waiting for: [Kind/namespace/name status: …]"): the
// objects it waited on, whether or not its inventory was read.
func healthCheckRefs(u *unstructured.Unstructured) []gref {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var out []gref
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || str(m, "type") != meta.ReadyCondition || str(m, "reason") != meta.HealthCheckFailedReason {
			continue
		}
		for _, item := range ParseFailure(str(m, "message")).Objects {
			if _, known := graphResources[item.Kind]; known && item.Name != "" {
				out = append(out, gref{kind: item.Kind, namespace: cmp.Or(item.Namespace, u.GetNamespace()), name: item.Name, field: "status.conditions"})
			}
		}
	}
	return out
}
