package lint

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/report"
)

// ChartCRDs says how to find the CRDs a HelmRelease installs: by rendering its chart
// (internal/helmrender) obtained by Charts.
type ChartCRDs struct {
	Charts  *charts.Getter
	Options helmrender.Options
}

// RenderCRDs renders the chart of every HelmRelease in the tiers that built and records the
// CRDs each installs (its crds/ unless spec.install.crds is Skip, and the CRDs among its
// templates): crd-order then counts them as declared by the HelmRelease's tier. It returns one
// gap per HelmRelease that could not be rendered, whose CRDs stay unknown.
func (r *Repo) RenderCRDs(ctx context.Context, c ChartCRDs) []report.Gap {
	var all []*unstructured.Unstructured
	if r.EntryBuild != nil {
		all = append(all, r.EntryBuild.Objects...)
	}
	for _, t := range r.Built() {
		all = append(all, t.Objects...)
	}
	srcs := charts.IndexSources(all)
	own := charts.Repository{Source: r.Source, Root: r.Root}
	opts := c.Options
	opts.APIVersions = append(append([]string(nil), opts.APIVersions...), helmrender.APIVersions(all)...)
	r.chartCRDs = map[string][]string{}
	var unrendered []report.Gap
	for _, t := range r.Built() {
		for _, o := range t.Objects {
			if !isHelmRelease(o) {
				continue
			}
			id := o.GetNamespace() + "/" + o.GetName()
			kinds, err := renderCRDs(ctx, c.Charts, o, srcs, own, all, opts)
			if err != nil {
				gvk := o.GroupVersionKind()
				unrendered = append(unrendered, report.Gap{Op: report.OpRender, Reason: report.GapBuildFailed,
					Subject: report.ObjectID{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()},
					What:    fmt.Sprintf("HelmRelease %s (Kustomization %s)", id, t.ID()), Error: err.Error()})
				continue
			}
			r.chartCRDs[id] = kinds
		}
	}
	return unrendered
}

func renderCRDs(ctx context.Context, g *charts.Getter, hr *unstructured.Unstructured, srcs charts.Sources, own charts.Repository, all []*unstructured.Unstructured, opts helmrender.Options) ([]string, error) {
	ref, err := charts.RefFor(hr, srcs, own)
	if err != nil {
		return nil, err
	}
	c, err := g.GetPinned(ctx, ref)
	if err != nil {
		return nil, err
	}
	rd, err := helmrender.Do(ctx, hr, c.Chart, c.Digest, all, opts)
	if err != nil {
		return nil, err
	}
	var crds []*unstructured.Unstructured
	if rd.InstallCRDs != "Skip" {
		crds = append(crds, rd.CRDs...)
	}
	for _, o := range rd.Manifest {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	var kinds []string
	for _, o := range crds {
		g, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		k, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		kinds = append(kinds, g+"/"+k)
	}
	return kinds, nil
}
