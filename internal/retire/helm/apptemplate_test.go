package helm

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// obj is an object of apiVersion and kind named ns/name, with annotations ann.
func obj(apiVersion, kind, ns, name string, ann map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
	u.SetNamespace(ns)
	if ann != nil {
		u.SetAnnotations(ann)
	}
	return u
}

// app-template is known only from the source the build declares and an exact version of a
// major whose persistence templates agree (3, 4, 5): home-ops repositories install it through a
// chartRef to an OCIRepository (onedr0p/home-ops, bjw-s-labs/home-ops kubernetes/apps/*/*/app/
// ocirepository.yaml) or from the bjw-s HelmRepository.
func TestAppTemplateVersion(t *testing.T) {
	oci := func(url, tag string) *unstructured.Unstructured {
		o := obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "media", "app", nil)
		_ = unstructured.SetNestedField(o.Object, url, "spec", "url")
		_ = unstructured.SetNestedField(o.Object, tag, "spec", "ref", "tag")
		return o
	}
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "media", "app", nil)
	_ = unstructured.SetNestedStringMap(hr.Object, map[string]string{"kind": "OCIRepository", "name": "app"}, "spec", "chartRef")
	cases := []struct {
		name string
		src  *unstructured.Unstructured
		want string
	}{
		{"bjw-s-labs OCI 5.0.1", oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "5.0.1"), "5.0.1"},
		{"older bjw-s OCI 3.7.3", oci("oci://ghcr.io/bjw-s/helm/app-template", "3.7.3"), "3.7.3"},
		{"a major not read", oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "6.0.0"), ""},
		{"a range is no exact version", oci("oci://ghcr.io/bjw-s-labs/helm/app-template", "4.x"), ""},
		{"another chart of the same name", oci("oci://ghcr.io/example/app-template", "4.4.0"), ""},
		{"source not in the build", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sources := map[string]*unstructured.Unstructured{}
			if tc.src != nil {
				sources["OCIRepository/media/app"] = tc.src
			}
			if got := AppTemplateVersion(hr, sources); got != tc.want {
				t.Errorf("appTemplateVersion = %q, want %q", got, tc.want)
			}
		})
	}
}

// app-template names a claim <fullname>-<id>, <fullname>-<nameOverride>, or <fullname> for
// nameOverride "-"; the fullname is the release name unless overridden.
func TestAppTemplateClaim(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "media", "paperless", nil)
	cases := []struct {
		name   string
		values map[string]any
		key    string
		want   string
	}{
		{"id", nil, "data", "paperless-data"},
		{"nameOverride -", nil, "-", "paperless"},
		{"fullnameOverride", map[string]any{"fullnameOverride": "docs"}, "data", "docs-data"},
		{"global nameOverride not in the release name", map[string]any{"global": map[string]any{"nameOverride": "ngx"}}, "data", "paperless-ngx-data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := AppTemplateClaim(hr, tc.values, tc.key); got != tc.want {
				t.Errorf("appTemplateClaim = %q, want %q", got, tc.want)
			}
		})
	}
}
