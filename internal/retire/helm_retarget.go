package retire

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// HelmRetargets names every HelmRelease that both revisions declare and whose candidate makes
// helm-controller uninstall its current release before installing again (action.
// ReleaseTargetChanged): another release name, release namespace or storage namespace, or
// another chart under upgrade.chartNameChangeStrategy Reinstall (the default). A chartRef
// pointing elsewhere may change the chart's name, which offline is not seen. Each is a line
// for Report.Incomplete: the uninstall is not judged object by object, so it is UNKNOWN.
func HelmRetargets(units []Unit) []string {
	var out []string
	for _, u := range units {
		base := map[string]*unstructured.Unstructured{}
		for _, o := range u.Base {
			if RefOf(o).GroupKind() == helmReleaseKind {
				base[RefOf(o).ID()] = o
			}
		}
		for _, c := range u.Candidate {
			b, ok := base[RefOf(c).ID()]
			if !ok || RefOf(c).GroupKind() != helmReleaseKind {
				continue
			}
			if why := retarget(b, c); why != "" {
				out = append(out, retargetLine(u, b, why))
			}
		}
	}
	return out
}

// retarget says what the candidate changes that makes helm-controller reinstall, "" when nothing.
func retarget(b, c *unstructured.Unstructured) string {
	if s, _, _ := unstructured.NestedBool(c.Object, "spec", "suspend"); s {
		return ""
	}
	if from, to := helmReleaseName(b), helmReleaseName(c); from != to {
		return fmt.Sprintf("changes its release from %s to %s", from, to)
	}
	if from, to := storageNamespace(b), storageNamespace(c); from != to {
		return fmt.Sprintf("changes its storage namespace from %s to %s", from, to)
	}
	strategy, _, _ := unstructured.NestedString(c.Object, "spec", "upgrade", "chartNameChangeStrategy")
	if strategy != "" && strategy != "Reinstall" {
		return ""
	}
	from, _, _ := unstructured.NestedString(b.Object, "spec", "chart", "spec", "chart")
	to, _, _ := unstructured.NestedString(c.Object, "spec", "chart", "spec", "chart")
	if from != to {
		return fmt.Sprintf("changes its chart from %q to %q (chartNameChangeStrategy Reinstall)", from, to)
	}
	fromRef, _, _ := unstructured.NestedMap(b.Object, "spec", "chartRef")
	toRef, _, _ := unstructured.NestedMap(c.Object, "spec", "chartRef")
	if fmt.Sprint(fromRef) != fmt.Sprint(toRef) {
		return fmt.Sprintf("points its chartRef elsewhere (%v to %v), which reinstalls if the chart's name changes (chartNameChangeStrategy Reinstall)", fromRef, toRef)
	}
	return ""
}

func retargetLine(u Unit, b *unstructured.Unstructured, why string) string {
	line := fmt.Sprintf("HelmRelease %s/%s (Kustomization %s): the candidate %s, so helm-controller uninstalls release %s, deleting every object its chart installed, before installing again",
		b.GetNamespace(), b.GetName(), u.Kustomization.ID(), why, helmReleaseName(b))
	values, _, _ := unstructured.NestedMap(b.Object, "spec", "values")
	var declared []string
	for _, v := range helmValues(values) {
		if v.declares() {
			declared = append(declared, v.Path)
		}
	}
	if len(declared) > 0 {
		line += "; its values declare persistent state: " + strings.Join(declared, ", ")
	}
	return line + "; not judged object by object"
}

// storageNamespace is where helm-controller keeps the release: spec.storageNamespace, else the
// HelmRelease's namespace.
func storageNamespace(u *unstructured.Unstructured) string {
	if s, _, _ := unstructured.NestedString(u.Object, "spec", "storageNamespace"); s != "" {
		return s
	}
	return u.GetNamespace()
}
