package helm

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The app-template chart by bjw-s (bjw-s-labs/helm-charts, charts/other/app-template 5.2.1 on
// the common library charts/library/common 5.2.1, read with the code search; the persistence
// templates of earlier revisions found there agree on the rules used here):
//
//   - claims come only from `persistence.<id>` items (render/_pvcs.tpl renders those that
//     lib pvc enabledPVCs keeps: enabled unless `enabled: false`, type defaulting to
//     persistentVolumeClaim, no existingClaim; classes/_pvc.tpl adds
//     helm.sh/resource-policy: keep when `retain` is set) and from a StatefulSet controller's
//     `volumeClaimTemplates`;
//   - lib/pvc valuesToObject names a claim `<fullname>-<nameOverride or id>`, or `<fullname>`
//     when nameOverride is "-"; lib/chart/_names.tpl makes the fullname the fullnameOverride,
//     else the release name when it contains the name (app-template's templates/common.yaml
//     sets global.nameOverride to the release name when unset), else `<release>-<name>`;
//   - `rawResources` render any object the values spell out, and no template installs a CRD.
var (
	appTemplateOCI   = []string{"oci://ghcr.io/bjw-s-labs/helm/app-template", "oci://ghcr.io/bjw-s/helm/app-template"}
	appTemplateRepos = []string{"https://bjw-s-labs.github.io/helm-charts", "https://bjw-s.github.io/helm-charts", "oci://ghcr.io/bjw-s-labs/helm", "oci://ghcr.io/bjw-s/helm"}
)

// appTemplateMajors are the major versions these rules hold for.
var appTemplateMajors = []string{"3", "4", "5"}

// AppTemplateVersion is the app-template version hr installs when the build shows it is that
// chart, from its source, at an exact version of a major whose templates were read; "" when it
// is not shown to be.
func AppTemplateVersion(hr *unstructured.Unstructured, sources map[string]*unstructured.Unstructured) string {
	var version string
	if name, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "chart"); name != "" {
		if name != "app-template" {
			return ""
		}
		version, _, _ = unstructured.NestedString(hr.Object, "spec", "chart", "spec", "version")
		repo := ChartSource(hr, sources)
		url := ""
		if repo != nil {
			url, _, _ = unstructured.NestedString(repo.Object, "spec", "url")
		}
		if !slices.Contains(appTemplateRepos, strings.TrimSuffix(url, "/")) {
			return ""
		}
	} else {
		src := ChartSource(hr, sources)
		if src == nil || src.GetKind() != "OCIRepository" {
			return ""
		}
		url, _, _ := unstructured.NestedString(src.Object, "spec", "url")
		if !slices.Contains(appTemplateOCI, strings.TrimSuffix(url, "/")) {
			return ""
		}
		version, _, _ = unstructured.NestedString(src.Object, "spec", "ref", "tag")
	}
	parts := strings.Split(strings.TrimPrefix(version, "v"), ".")
	if len(parts) != 3 || !slices.Contains(appTemplateMajors, parts[0]) {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return version
}

// AppTemplateClaim is the name app-template gives the claim of persistence item key.
func AppTemplateClaim(hr *unstructured.Unstructured, values map[string]any, key string) string {
	_, release := SplitRelease(ReleaseName(hr))
	global, _ := values["global"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	full := str(global, "fullnameOverride")
	if full == "" {
		full = str(values, "fullnameOverride")
	}
	if full == "" {
		name := str(global, "nameOverride")
		if name == "" {
			name = release // app-template's templates/common.yaml
		}
		full = release
		if !strings.Contains(release, name) {
			full = release + "-" + name
		}
	}
	full = strings.TrimSuffix(truncate(full, 63), "-")
	if key == "-" {
		return full
	}
	return full + "-" + key
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// ValuesSeen reports whether every value of an app-template HelmRelease that can make state is
// in its inline values: no valuesFrom, no rawResources (they render any object), and no
// volumeClaimTemplates (their claims outlive the StatefulSet, so a change to them is not
// judged from values).
func ValuesSeen(hr *unstructured.Unstructured) bool {
	if _, has := Spec(hr)["valuesFrom"]; has {
		return false
	}
	values := InlineValues(hr)
	if _, has := values["rawResources"]; has {
		return false
	}
	for _, v := range Values(values) {
		if v.Orphaned {
			return false
		}
	}
	return true
}

// AppTemplateStateless is the evidence that uninstalling the app-template release hr installs
// deletes no chart-made state, "" when that is not shown: its values are all seen and make the
// chart create no claim.
func AppTemplateStateless(hr *unstructured.Unstructured, sources map[string]*unstructured.Unstructured) string {
	version := AppTemplateVersion(hr, sources)
	if version == "" || !ValuesSeen(hr) {
		return ""
	}
	for _, v := range Values(InlineValues(hr)) {
		if v.key != "" {
			return ""
		}
	}
	return fmt.Sprintf("app-template %s makes claims only from persistence.* and volumeClaimTemplates and installs no CRDs, and its values declare no claim (no persistentVolumeClaim item in persistence.*) and no volumeClaimTemplates (no valuesFrom, no rawResources), so the uninstall deletes no chart-made state", version)
}
