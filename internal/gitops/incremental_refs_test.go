package gitops

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeforensics/suite/internal/kbuild"
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
			for name, text := range tc.files {
				p := filepath.Join(root, "apps", "app", name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := newStaticReader(root, kbuild.ScanRoot(t.Context(), root).Links)
			if got := s.mayName(kbuild.Kustomization{Path: "apps/app"}, tc.names); got != tc.want {
				t.Errorf("mayName(%q) = %t, want %t", tc.names, got, tc.want)
			}
		})
	}
}
