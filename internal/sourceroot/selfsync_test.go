package sourceroot

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// fluxKS is a Flux Kustomization named name building p from the flux-system GitRepository.
func fluxKS(name, p string) string {
	return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
		"\n  namespace: flux-system\nspec:\n  path: " + p + "\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
}

const mediaNS = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: media\n"

// The older home-ops layout (onedr0p/home-ops before kubernetes/flux/cluster, e.g. its
// kubernetes/flux/config/cluster.yaml declaring the root Kustomization "cluster" with path
// ./kubernetes/flux) has no clusters/ or flux/cluster directory: the entry is found from where
// the root Kustomization is declared — it builds the directory that declares it — not from
// folder names (issue 23, item 6). Before, the top level was built whole. When nothing tells,
// the top level is still built whole, and EntryHow says so and suggests --path.
func TestDetectSelfSyncingRoot(t *testing.T) {
	cases := []struct {
		name              string
		files             map[string]string
		wantPath, wantHow string
		wantErr           string
	}{
		{name: "root Kustomization in kubernetes/flux/config", files: map[string]string{
			"kubernetes/flux/config/cluster.yaml":  fluxKS("cluster", "./kubernetes/flux"),
			"kubernetes/flux/apps.yaml":            fluxKS("cluster-apps", "./kubernetes/apps"),
			"kubernetes/apps/media/namespace.yaml": mediaNS,
			".github/labels.yaml":                  "- name: area/kubernetes\n",
		}, wantPath: "kubernetes/flux", wantHow: "the directory a Kustomization declared in it builds"},
		{name: "two self-syncing roots", files: map[string]string{
			"a/flux/config/cluster.yaml": fluxKS("cluster", "./a/flux"),
			"b/flux/config/cluster.yaml": fluxKS("cluster", "./b/flux"),
		}, wantErr: "several directories are built by a Kustomization declared in them, as a bootstrap's root is (a/flux, b/flux)"},
		{name: "the top level built whole says so", files: map[string]string{
			"kustomization.yaml":             "resources:\n- setup/flux/config\n",
			"setup/flux/config/ks.yaml":      fluxKS("cluster-apps", "./kubernetes"),
			"kubernetes/apps/namespace.yaml": mediaNS,
		}, wantPath: ".", wantHow: "built whole"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			if err := incident.WriteFiles(top, tc.files); err != nil {
				t.Fatal(err)
			}
			l, err := Detect(top, "", "", nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.SourceRoot != "." || l.Entry != tc.wantPath || !strings.Contains(l.EntryHow, tc.wantHow) {
				t.Errorf("layout %+v, want entry %q (how containing %q)", l, tc.wantPath, tc.wantHow)
			}
			if tc.wantPath == "." && !strings.Contains(l.EntryHow, "--path") {
				t.Errorf("the fallback does not suggest --path: %q", l.EntryHow)
			}
		})
	}
}

// Entries names every directory that could be the entry, a hub that bootstraps spokes among
// them (fluxcd/flux2-hub-spoke-example: hub/ beside clusters/staging, clusters/production).
func TestEntries(t *testing.T) {
	top := t.TempDir()
	if err := incident.WriteFiles(top, map[string]string{
		"hub/staging.yaml":                     fluxKS("apps", "./deploy/apps"),
		"clusters/staging/apps/values.yaml":    "a: b\n",
		"clusters/production/apps/values.yaml": "a: b\n",
		"deploy/apps/namespace.yaml":           mediaNS,
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(Entries(top), ", "); got != "clusters/production, clusters/staging, hub" {
		t.Errorf("Entries = %q", got)
	}
}
