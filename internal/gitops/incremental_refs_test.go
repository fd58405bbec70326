package gitops

import (
	"path/filepath"
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// TestMayName: a tier left unbuilt is built for a changed ConfigMap, Secret or source only
// when its files may declare a HelmRelease and may name it; unsure is yes.
func TestMayName(t *testing.T) {
	hr := func(valuesFrom string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: media\nspec:\n" +
			"  chart:\n    spec:\n      chart: app-template\n      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}\n" +
			"  valuesFrom:\n    - kind: ConfigMap\n      name: " + valuesFrom + "\n"
	}
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-values\n  namespace: media\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		names []string
		want  bool
	}{
		{"names the values", map[string]string{"release.yaml": hr("app-values")}, []string{"app-values"}, true},
		{"names the chart source", map[string]string{"release.yaml": hr("app-values")}, []string{"bjw-s"}, true},
		{"names neither", map[string]string{"release.yaml": hr("app-values")}, []string{"other-values", "podinfo"}, false},
		{"no HelmRelease", map[string]string{"deploy.yaml": deploy}, []string{"app-values"}, false},
		{"a variable names it", map[string]string{"release.yaml": hr("${APP}-values")}, []string{"app-values"}, true},
		{"a prefix renames it", map[string]string{"release.yaml": hr("values"), "kustomization.yaml": "namePrefix: app-\nresources:\n  - release.yaml\n"}, []string{"app-values"}, true},
		{"named in a patch of the kustomization", map[string]string{"release.yaml": hr("values"),
			"kustomization.yaml": "resources:\n  - release.yaml\npatches:\n  - patch: |\n      - {op: replace, path: /spec/valuesFrom/0/name, value: app-values}\n    target: {kind: HelmRelease}\n"}, []string{"app-values"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := incident.WriteFiles(filepath.Join(root, "apps", "app"), tc.files); err != nil {
				t.Fatal(err)
			}
			s := newStaticReader(root, kbuild.ScanRoot(t.Context(), root).Links)
			if got := s.mayName(kbuild.Kustomization{Path: "apps/app"}, tc.names); got != tc.want {
				t.Errorf("mayName(%q) = %t, want %t", tc.names, got, tc.want)
			}
		})
	}
}

// TestFillSkippedNaming: after LoadPair of a change to a values ConfigMap only, the unbuilt
// tier whose HelmRelease reads it is built at the base and shared with the candidate; the
// unbuilt tier whose HelmRelease reads another stays unbuilt.
func TestFillSkippedNaming(t *testing.T) {
	ks := func(name string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n" +
			"  path: ./apps/" + name + "\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	}
	hr := func(name string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\n  namespace: media\nspec:\n" +
			"  chart:\n    spec:\n      chart: app-template\n      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}\n" +
			"  valuesFrom:\n    - kind: ConfigMap\n      name: " + name + "-values\n"
	}
	values := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: paperless-values\n  namespace: media\ndata:\n  values.yaml: |\n    a: " + v + "\n"
	}
	write := func(root string, files map[string]string) {
		if err := incident.WriteFiles(root, files); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"clusters/main/apps.yaml":     ks("shared") + "---\n" + ks("paperless") + "---\n" + ks("jellyfin"),
		"apps/shared/values.yaml":     values("1"),
		"apps/paperless/release.yaml": hr("paperless"),
		"apps/jellyfin/release.yaml":  hr("jellyfin"),
	}
	baseRoot, candRoot := t.TempDir(), t.TempDir()
	write(baseRoot, files)
	write(candRoot, files)
	write(candRoot, map[string]string{"apps/shared/values.yaml": values("2")})
	opts := LoadOptions{Entry: "clusters/main", NoFiles: true}
	base, cand, errB, errC := LoadPair(t.Context(), baseRoot, candRoot, opts, &gitrev.Changes{Paths: []string{"apps/shared/values.yaml"}})
	if errB != nil || errC != nil {
		t.Fatal(errB, errC)
	}
	for _, id := range []string{"flux-system/paperless", "flux-system/jellyfin"} {
		if !cand.Tiers[id].NotBuilt() {
			t.Fatalf("%s was built by LoadPair; the fixture no longer tests the fill", id)
		}
	}
	got := FillSkippedNaming(t.Context(), base, cand, []string{"paperless-values"})
	if len(got) != 1 || got[0] != "flux-system/paperless" {
		t.Fatalf("built %q, want only flux-system/paperless", got)
	}
	if p := cand.Tiers["flux-system/paperless"]; p.NotBuilt() || len(p.Objects) != 1 || p.Objects[0].GetName() != "paperless" {
		t.Errorf("the candidate's paperless tier is not the base's build: built %t, %d objects", !p.NotBuilt(), len(p.Objects))
	}
	if !cand.Tiers["flux-system/jellyfin"].NotBuilt() || !base.Tiers["flux-system/jellyfin"].NotBuilt() {
		t.Errorf("jellyfin, which reads another ConfigMap, was built")
	}
}
