package kbuild

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestKustomizationsIn(t *testing.T) {
	cases := []struct {
		name     string
		manifest string
		want     *Kustomization // nil: not a Flux Kustomization
	}{
		{"timeout defaults to interval minus 30s", ksYAML("./apps/", ""),
			&Kustomization{Namespace: "flux-system", Name: "test", Path: "apps", Prune: true, Timeout: 9*time.Minute + 30*time.Second,
				SourceKind: "GitRepository", SourceNamespace: "flux-system", SourceName: "flux-system"}},
		{"explicit timeout, wait, dependsOn and source namespaces", ksYAML("clusters/x/../prod", `  timeout: 2m
  wait: true
  dependsOn:
  - name: crds
  - name: infra
    namespace: platform
`) + "", &Kustomization{Namespace: "flux-system", Name: "test", Path: "clusters/prod", Prune: true, Wait: true, Timeout: 2 * time.Minute,
			DependsOn: []string{"flux-system/crds", "platform/infra"}, SourceKind: "GitRepository", SourceNamespace: "flux-system", SourceName: "flux-system"}},
		{"short interval floors at 30s", `apiVersion: kustomize.toolkit.fluxcd.io/v1beta2
kind: Kustomization
metadata: {name: fast, namespace: apps}
spec: {interval: 10s, sourceRef: {kind: OCIRepository, name: tenant, namespace: tenants}}
`, &Kustomization{Namespace: "apps", Name: "fast", Path: ".", Timeout: 30 * time.Second, SourceKind: "OCIRepository", SourceNamespace: "tenants", SourceName: "tenant"}},
		{"unquoted boolean label decodes as the controller applies it", strings.Replace(ksYAML("./apps", ""), "  name: test\n", "  name: test\n  labels: {substitution.flux/enabled: false, tier: 1}\n", 1),
			&Kustomization{Namespace: "flux-system", Name: "test", Path: "apps", Prune: true, Timeout: 9*time.Minute + 30*time.Second,
				SourceKind: "GitRepository", SourceNamespace: "flux-system", SourceName: "flux-system"}},
		{"kustomize's own Kustomization is a build file", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nmetadata: {name: x}\n", nil},
		{"HelmRelease naming kinds in its data", fixture["infra/base/helmrelease.yaml"], nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KustomizationsIn([]*unstructured.Unstructured{obj(t, tc.manifest)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no Kustomization", got)
				}
				return
			}
			if len(got) != 1 || got[0].Object == nil {
				t.Fatalf("got %+v, want one Kustomization with its object", got)
			}
			got[0].Object = nil
			if !reflect.DeepEqual(got[0], *tc.want) {
				t.Fatalf("got\n%+v\nwant\n%+v", got[0], *tc.want)
			}
		})
	}
}

func TestKustomizationsInRejectsMalformed(t *testing.T) {
	bad := obj(t, "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: x, namespace: y}\nspec: {interval: soon}\n")
	if _, err := KustomizationsIn([]*unstructured.Unstructured{bad}); err == nil {
		t.Fatal("an unparsable interval must be an error")
	}
}

func TestObjectID(t *testing.T) {
	cases := []struct{ name, manifest, want string }{
		{"core namespaced", pvc("data", "apps"), "apps_data__PersistentVolumeClaim"},
		{"grouped", fixture["apps/plain/deploy.yaml"], "apps_web_apps_Deployment"},
		{"cluster-scoped", "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n", "_apps__Namespace"},
		{"rbac colon", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: 'system:x'}\n", "_system__x_rbac.authorization.k8s.io_ClusterRole"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ObjectID(obj(t, tc.manifest)); got != tc.want {
				t.Fatalf("ObjectID = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCleanPath(t *testing.T) {
	for in, want := range map[string]string{"": ".", "./": ".", "/": ".", "./clusters/prod/": "clusters/prod", "/clusters/prod": "clusters/prod",
		"clusters/x/../prod": "clusters/prod", "../../etc": "etc"} {
		if got := CleanPath(in); got != want {
			t.Errorf("CleanPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSubstitutionSources feeds a tier's built ConfigMaps and SOPS Secret to another tier's
// substitution, reading the Secret's key names only.
func TestSubstitutionSources(t *testing.T) {
	_, snap := fixtureRoot(t)
	vars := BuildPath(context.Background(), snap.Dir, "apps/sops", Options{})
	plain := BuildPath(context.Background(), snap.Dir, "apps/plain", Options{})
	if vars.Err != nil || plain.Err != nil {
		t.Fatal(vars.Err, plain.Err)
	}
	cms, keys := SubstitutionSources(append(vars.Objects, plain.Objects...))
	if want := map[string]map[string]string{"apps/settings": {"mode": "fast"}}; !reflect.DeepEqual(cms, want) {
		t.Errorf("ConfigMaps = %v, want %v", cms, want)
	}
	if want := map[string][]string{"apps/db": {"password"}}; !reflect.DeepEqual(keys, want) {
		t.Errorf("SecretKeys = %v, want %v", keys, want)
	}
}
