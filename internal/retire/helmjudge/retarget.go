package helmjudge

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire/helm"
	"github.com/kubeforensics/suite/internal/retire/inventory"
)

// Retargets names every HelmRelease that both revisions declare and whose candidate makes
// helm-controller uninstall its current release before installing again (action.
// ReleaseTargetChanged): another release name, release namespace or storage namespace, or
// another chart under upgrade.chartNameChangeStrategy Reinstall (the default), the chart's name
// read through a chartRef from the OCIRepository or HelmChart the builds declare. A chartRef
// pointing elsewhere whose chart is not seen may change it too. Each is a line
// for Report.Incomplete: the uninstall is not judged object by object, so it is UNKNOWN.
func Retargets(units []Unit) []report.Gap {
	var bases, cands []*unstructured.Unstructured
	for _, u := range units {
		bases, cands = append(bases, u.Base...), append(cands, u.Candidate...)
	}
	sides := [2]map[string]*unstructured.Unstructured{ChartSources(bases), ChartSources(cands)}
	var out []report.Gap
	for _, u := range units {
		base := map[string]*unstructured.Unstructured{}
		for _, o := range u.Base {
			if inventory.RefOf(o).GroupKind() == ReleaseKind {
				base[inventory.RefOf(o).ID()] = o
			}
		}
		for _, c := range u.Candidate {
			b, ok := base[inventory.RefOf(c).ID()]
			if !ok || inventory.RefOf(c).GroupKind() != ReleaseKind {
				continue
			}
			if why := retarget(b, c, sides); why != "" {
				out = append(out, retargetGap(u, b, why))
			}
		}
	}
	return out
}

// ChartSources indexes the OCIRepositories, HelmCharts and HelmRepositories a build declares, by Kind/namespace/name.
func ChartSources(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	m := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		if gvk := o.GroupVersionKind(); gvk.Group == "source.toolkit.fluxcd.io" && (gvk.Kind == "OCIRepository" || gvk.Kind == "HelmChart" || gvk.Kind == "HelmRepository") {
			m[gvk.Kind+"/"+o.GetNamespace()+"/"+o.GetName()] = o
		}
	}
	return m
}

// chartName is the name of the chart a HelmRelease installs: spec.chart.spec.chart, or through
// spec.chartRef the HelmChart's spec.chart or the OCIRepository's last path segment (Helm pushes
// a chart to <registry>/<path>/<chart name>); ok is false when the build does not show it.
func chartName(hr *unstructured.Unstructured, sources map[string]*unstructured.Unstructured) (string, bool) {
	if name, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "chart"); name != "" {
		return name, true
	}
	kind, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "kind")
	name, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "name")
	ns, _, _ := unstructured.NestedString(hr.Object, "spec", "chartRef", "namespace")
	if ns == "" {
		ns = hr.GetNamespace()
	}
	src, ok := sources[kind+"/"+ns+"/"+name]
	if !ok {
		return "", false
	}
	if kind == "HelmChart" {
		c, _, _ := unstructured.NestedString(src.Object, "spec", "chart")
		return c, c != ""
	}
	url, _, _ := unstructured.NestedString(src.Object, "spec", "url")
	url = strings.TrimSuffix(url, "/")
	if i := strings.LastIndex(url, "/"); i >= 0 && i < len(url)-1 {
		return url[i+1:], true
	}
	return "", false
}

// retarget says what the candidate changes that makes helm-controller reinstall, "" when nothing.
func retarget(b, c *unstructured.Unstructured, sides [2]map[string]*unstructured.Unstructured) string {
	if s, _, _ := unstructured.NestedBool(c.Object, "spec", "suspend"); s {
		return ""
	}
	if from, to := helm.ReleaseName(b), helm.ReleaseName(c); from != to {
		return fmt.Sprintf("changes its release from %s to %s", from, to)
	}
	if from, to := storageNamespace(b), storageNamespace(c); from != to {
		return fmt.Sprintf("changes its storage namespace from %s to %s", from, to)
	}
	strategy, _, _ := unstructured.NestedString(c.Object, "spec", "upgrade", "chartNameChangeStrategy")
	if strategy != "" && strategy != "Reinstall" {
		return ""
	}
	from, fromOK := chartName(b, sides[0])
	to, toOK := chartName(c, sides[1])
	if fromOK && toOK && from != to {
		return fmt.Sprintf("changes its chart from %q to %q (chartNameChangeStrategy Reinstall)", from, to)
	}
	fromRef, _, _ := unstructured.NestedMap(b.Object, "spec", "chartRef")
	toRef, _, _ := unstructured.NestedMap(c.Object, "spec", "chartRef")
	if (!fromOK || !toOK) && fmt.Sprint(fromRef) != fmt.Sprint(toRef) {
		return fmt.Sprintf("points its chart elsewhere (%s to %s), which reinstalls if the chart's name changes (chartNameChangeStrategy Reinstall)", chartRefText(b, fromRef), chartRefText(c, toRef))
	}
	return ""
}

// chartRefText names what a HelmRelease's chart comes from, for a reader: "chartRef
// OCIRepository flux-system/podinfo" (the namespace defaulting to the release's), or "spec.chart"
// when it has no chartRef (a chart from a HelmRepository, GitRepository or Bucket).
func chartRefText(hr *unstructured.Unstructured, ref map[string]any) string {
	if len(ref) == 0 {
		return "spec.chart"
	}
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
	if ns == "" {
		ns = hr.GetNamespace()
	}
	return fmt.Sprintf("chartRef %s %s/%s", kind, ns, name)
}

// retargetGap is the reinstall of b's release, which the candidate's change why causes, as a
// gap: not judged object by object.
func retargetGap(u Unit, b *unstructured.Unstructured, why string) report.Gap {
	line := fmt.Sprintf("the candidate %s, so helm-controller uninstalls release %s, deleting every object its chart installed, before installing again",
		why, helm.ReleaseName(b))
	values, _, _ := unstructured.NestedMap(b.Object, "spec", "values")
	var declared []string
	for _, v := range helm.Values(values) {
		if v.Declares() {
			declared = append(declared, v.Path)
		}
	}
	if len(declared) > 0 {
		line += "; its values declare persistent state: " + strings.Join(declared, ", ")
	}
	return notJudged(inventory.RefOf(b).GapID(), report.GapUnsupported, fmt.Sprintf("HelmRelease %s/%s (Kustomization %s)", b.GetNamespace(), b.GetName(), u.Kustomization),
		line+"; not judged object by object")
}

// storageNamespace is where helm-controller keeps the release: spec.storageNamespace, else the
// HelmRelease's namespace.
func storageNamespace(u *unstructured.Unstructured) string {
	if s, _, _ := unstructured.NestedString(u.Object, "spec", "storageNamespace"); s != "" {
		return s
	}
	return u.GetNamespace()
}
