package helmjudge

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Drift names the objects a render and the installed release's manifest disagree on: drift
// or manual changes since helm-controller last installed it (a chart version or values the
// cluster never got, an upgrade that failed, an edit by hand).
type Drift struct {
	// Rendered is the render compared ("web 1.2.0 at base").
	Rendered      string          `json:"rendered"`
	OnlyInstalled []inventory.Ref `json:"onlyInstalled,omitempty"`
	OnlyRendered  []inventory.Ref `json:"onlyRendered,omitempty"`
}

// installedText names a deployed release: "web 1.2.0, revision 2, Secret ns/sh.helm.release.v1.web.v2".
func installedText(rel *helmstorage.Release) string {
	return fmt.Sprintf("%s %s, revision %d, %s", rel.Chart, rel.ChartVersion, rel.Version, rel.Record)
}

// Installed reads the deployed release of the live HelmRelease namespace/name from its storage
// namespace (helmstorage): nil, nil when the HelmRelease is not served, not on the cluster or
// never installed (empty status.storageNamespace).
func (lr *Reader) Installed(ctx context.Context, namespace, name string) (*helmstorage.Release, error) {
	hr, err := lr.installedHelmRelease(ctx, namespace, name)
	if hr == nil || err != nil {
		return nil, err
	}
	return lr.installed(ctx, hr, false)
}

// installedHelmRelease reads the live HelmRelease namespace/name: nil, nil when it is not
// served, not on the cluster or never installed (empty status.storageNamespace).
func (lr *Reader) installedHelmRelease(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	res, ok := lr.Catalog.ForGroupKind(schema.GroupKind{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease"})
	if !ok {
		return nil, nil
	}
	hr, err := lr.Clients.Dynamic.Resource(res.GVR()).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading HelmRelease %s/%s: %s", namespace, name, cluster.Reason(err))
	}
	if s, _, _ := unstructured.NestedString(hr.Object, "status", "storageNamespace"); s == "" {
		return nil, nil
	}
	return hr, nil
}

// installed reads hr's deployed release (withChart: with its stored chart) and places its
// manifest's and its hooks' objects as Helm creates them: a namespaced object without a
// namespace goes in the release's namespace.
func (lr *Reader) installed(ctx context.Context, hr *unstructured.Unstructured, withChart bool) (*helmstorage.Release, error) {
	read := helmstorage.Deployed
	if withChart {
		read = helmstorage.DeployedChart
	}
	rel, err := read(ctx, lr.Clients.Kube, helmstorage.Locate(hr))
	if err != nil {
		return nil, err
	}
	objs := slices.Clone(rel.Objects)
	for _, h := range rel.Hooks {
		objs = append(objs, h.Object)
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		res, ok := lr.Catalog.ForGroupKind(gvk.GroupKind())
		switch {
		case ok && !res.Namespaced:
			o.SetNamespace("")
		case o.GetNamespace() == "":
			o.SetNamespace(rel.Namespace)
		}
	}
	return rel, nil
}

// manifestFacts reads, for each object of the installed manifest, what deleting it loses: a
// claim's mounting pods and reclaim cost, a StatefulSet's templates and the claims it made, a
// CRD's custom resources on the cluster. Keep is read from the manifest, as Helm's uninstall
// reads it.
func (lr *Reader) manifestFacts(ctx context.Context, rel *helmstorage.Release, gaps *[]report.Gap) []Object {
	var out []Object
	for _, m := range rel.Objects {
		o := Object{Object: inventory.RefOf(m), InManifest: true, Keep: helm.IsKeep(m.GetAnnotations()[helm.ResourcePolicyAnnotation])}
		switch o.Object.GroupKind() {
		case "CustomResourceDefinition.apiextensions.k8s.io":
			o.Detail = lr.manifestCRDCount(ctx, m, gaps)
			out = append(out, o)
		case "StatefulSet.apps", "PersistentVolumeClaim":
			res, ok := lr.Catalog.ForGroupKind(m.GroupVersionKind().GroupKind())
			if !ok {
				out = append(out, o)
				continue
			}
			o, claims := lr.objectFacts(ctx, res, o, gaps)
			out = append(out, o)
			out = append(out, claims...)
		default:
			out = append(out, o)
		}
	}
	inManifest := inventory.IDs(rel.Objects)
	out = slices.DeleteFunc(out, func(o Object) bool { // a template claim the manifest also holds
		return !o.InManifest && inManifest[o.Object.ID()]
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Object.ID() < out[j].Object.ID() })
	return out
}

// helmDrift compares a render with the installed manifest, nil when they hold the same objects.
func helmDrift(rendered string, render, installed []*unstructured.Unstructured) *Drift {
	in, re := inventory.IDs(installed), inventory.IDs(render)
	d := &Drift{Rendered: rendered}
	for _, o := range installed {
		if !re[inventory.RefOf(o).ID()] {
			d.OnlyInstalled = append(d.OnlyInstalled, inventory.RefOf(o))
		}
	}
	for _, o := range render {
		if !in[inventory.RefOf(o).ID()] {
			d.OnlyRendered = append(d.OnlyRendered, inventory.RefOf(o))
		}
	}
	if len(d.OnlyInstalled)+len(d.OnlyRendered) == 0 {
		return nil
	}
	return d
}

// Text says where the render and the installed manifest disagree.
func (d *Drift) Text() string {
	var parts []string
	if len(d.OnlyInstalled) > 0 {
		parts = append(parts, "installed but not rendered: "+refsText(d.OnlyInstalled))
	}
	if len(d.OnlyRendered) > 0 {
		parts = append(parts, "rendered but not installed: "+refsText(d.OnlyRendered))
	}
	return fmt.Sprintf("the installed release and the render of chart %s disagree (drift, a failed upgrade or a change by hand): %s", d.Rendered, strings.Join(parts, "; "))
}

func refsText(rs []inventory.Ref) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = r.String()
	}
	return strings.Join(s, ", ")
}

// FromText names what the upgrade starts from: the installed revision live, else the base render.
func (d *Drop) FromText() string {
	if d.Installed != "" {
		return "installed " + d.Installed
	}
	return d.From
}

// manifestCRDCount says how many custom resources deleting the manifest's CRD crd deletes: they
// are listed by the resource the CRD itself declares (its group, plural and served version, not
// a discovery cache that may predate it); a CRD not on the cluster serves none.
func (lr *Reader) manifestCRDCount(ctx context.Context, crd *unstructured.Unstructured, gaps *[]report.Gap) string {
	res := kinds.Resource{}
	res.Group, _, _ = unstructured.NestedString(crd.Object, "spec", "group")
	res.Resource, _, _ = unstructured.NestedString(crd.Object, "spec", "names", "plural")
	res.Kind, _, _ = unstructured.NestedString(crd.Object, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	res.Namespaced = scope != "Cluster"
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if served, _ := m["served"].(bool); served && res.Version == "" {
			res.Version, _ = m["name"].(string)
		}
	}
	if res.Group == "" || res.Resource == "" || res.Version == "" {
		*gaps = append(*gaps, notJudged(inventory.RefOf(crd).GapID(), report.GapUnsupported, fmt.Sprintf("counting the custom resources of %s", inventory.RefOf(crd)), "its manifest names no group, plural or served version"))
		return "its custom resources could not be counted"
	}
	n, err := kinds.CountObjects(ctx, lr.Clients.Metadata, res, "")
	if apierrors.IsNotFound(err) {
		n, err = 0, nil
	}
	if err != nil {
		*gaps = append(*gaps, cluster.Gap(report.OpList, report.ObjectID{Group: res.Group, Version: res.Version, Kind: res.Kind, Resource: res.Resource}, "counting "+res.QualifiedName(), err))
		return "its custom resources could not be counted"
	}
	return fmt.Sprintf("in the chart's templates, so Helm deletes it, and with it its %d custom resources on the cluster", n)
}
