// Package helm knows what Helm and helm-controller make of a HelmRelease manifest, read
// offline: the release it installs (ReleaseName), the persistent state its inline values
// declare (Values), the chart source it names (ChartSource), and the rules of charts whose
// templates were read (app-template: AppTemplateVersion, AppTemplateClaim,
// AppTemplateStateless). internal/retire/helmjudge judges removals and upgrades with it;
// this package reads objects only, never a cluster or a chart.
package helm

import (
	"github.com/kubeforensics/suite/internal/helmstorage"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ResourcePolicyAnnotation is the annotation by which Helm keeps an object on uninstall.
const ResourcePolicyAnnotation = "helm.sh/resource-policy"

// ReleaseName is the release a HelmRelease manifest installs, namespace/name, as
// helm-controller names it: spec.releaseName, else `[<targetNamespace>-]<name>`, shortened
// to 53 characters with a hash (internal/release/name.go ShortenName); its namespace is
// spec.targetNamespace, else the HelmRelease's.
func ReleaseName(u *unstructured.Unstructured) string {
	ns := u.GetNamespace()
	if target, _, _ := unstructured.NestedString(u.Object, "spec", "targetNamespace"); target != "" {
		ns = target
	}
	return ns + "/" + helmstorage.ReleaseName(u)
}

// SplitRelease splits `namespace/name`.
func SplitRelease(s string) (string, string) {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return ns, name
	}
	return "", s
}

// InlineValues is spec.values, nil when absent.
func InlineValues(hr *unstructured.Unstructured) map[string]any {
	v, _, _ := unstructured.NestedMap(hr.Object, "spec", "values")
	return v
}

// ChartSource is the source object the HelmRelease's chart comes from, as the build declares
// it: the HelmRepository of spec.chart.spec.sourceRef, or the OCIRepository or HelmChart of
// spec.chartRef; nil when the build does not hold it.
func ChartSource(hr *unstructured.Unstructured, sources map[string]*unstructured.Unstructured) *unstructured.Unstructured {
	ref, _, _ := unstructured.NestedStringMap(hr.Object, "spec", "chartRef")
	if ref == nil {
		ref, _, _ = unstructured.NestedStringMap(hr.Object, "spec", "chart", "spec", "sourceRef")
	}
	if ref == nil {
		return nil
	}
	ns := ref["namespace"]
	if ns == "" {
		ns = hr.GetNamespace()
	}
	return sources[ref["kind"]+"/"+ns+"/"+ref["name"]]
}

// Spec is an object's spec, nil when it has none.
func Spec(u *unstructured.Unstructured) map[string]any {
	m, _ := u.Object["spec"].(map[string]any)
	return m
}
