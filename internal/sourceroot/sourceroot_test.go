package sourceroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

func TestDetectLayout(t *testing.T) {
	tree := func(t *testing.T, dirs ...string) string {
		t.Helper()
		top := t.TempDir()
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(top, filepath.FromSlash(d)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return top
	}
	cases := []struct {
		name               string
		dirs               []string
		sourceRoot, entry  string
		paths              []string
		wantRoot, wantPath string
		wantErr            string
	}{
		{name: "clusters at the top", dirs: []string{"clusters/prod", "apps"}, wantRoot: ".", wantPath: "clusters/prod"},
		{name: "clusters under the artifact root", dirs: []string{"k8s/clusters/prod", "k8s/apps", "docs"}, wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "no clusters directory", dirs: []string{"apps"}, wantRoot: ".", wantPath: "."},
		{name: "two cluster directories", dirs: []string{"clusters/prod", "clusters/staging"}, wantErr: "several directories could be the entry path (clusters/prod, clusters/staging): choose one with --path"},
		{name: "two roots with clusters", dirs: []string{"a/clusters/x", "b/clusters/x"}, wantErr: "several directories could be the entry path (a/clusters/x, b/clusters/x)"},
		{name: "entry under the artifact root", dirs: []string{"k8s/clusters/prod"}, entry: "./clusters/prod/", wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "entry at the top wins", dirs: []string{"clusters/prod", "k8s/clusters/prod"}, entry: "clusters/prod", wantRoot: ".", wantPath: "clusters/prod"},
		{name: "entry under two roots", dirs: []string{"a/clusters/prod", "b/clusters/prod"}, entry: "clusters/prod", wantErr: "resolves under several directories (a, b)"},
		{name: "entry nowhere", dirs: []string{"k8s"}, entry: "clusters/prod", wantErr: "is not a directory of the repository, nor of any directory in it"},
		{name: "live paths", dirs: []string{"k8s/apps", "k8s/infra", "apps"}, paths: []string{"./apps", "infra"}, wantRoot: "k8s"},
		{name: "live path missing falls back to the top", dirs: []string{"k8s/apps"}, paths: []string{"apps", "ghost"}, wantRoot: "."},
		{name: "live entry names the root Kustomization", dirs: []string{"k8s/apps", "k8s/clusters/prod"}, entry: "clusters/prod", paths: []string{"apps"}, wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "live paths with a given root", dirs: []string{"k8s/apps"}, sourceRoot: "k8s", paths: []string{"apps"}, wantRoot: "k8s"},
		{name: "given root", dirs: []string{"k8s/clusters/prod"}, sourceRoot: "k8s/", wantRoot: "k8s", wantPath: "clusters/prod"},
		{name: "given root with two cluster directories", dirs: []string{"k8s/clusters/prod", "k8s/clusters/dev"}, sourceRoot: "k8s", wantErr: "under --source-root k8s could be the entry path (clusters/dev, clusters/prod): choose one with --path"},
		{name: "given root without the entry", dirs: []string{"k8s/clusters/prod", "other"}, sourceRoot: "other", entry: "clusters/prod", wantErr: "not a directory under --source-root other"},
		{name: "given root missing", dirs: []string{"k8s"}, sourceRoot: "nope", wantErr: "--source-root nope is not a directory"},
		{name: "hidden directories are not roots", dirs: []string{".git/clusters/prod", "clusters/prod"}, wantRoot: ".", wantPath: "clusters/prod"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Detect(tree(t, tc.dirs...), tc.sourceRoot, tc.entry, tc.paths)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q (layout %+v)", err, tc.wantErr, l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.SourceRoot != tc.wantRoot || l.Entry != tc.wantPath || l.SourceRootHow == "" || (l.Entry != "" && l.EntryHow == "") {
				t.Errorf("layout %+v, want root %q entry %q, each with how it was chosen", l, tc.wantRoot, tc.wantPath)
			}
		})
	}
}

// TestDetectLayoutFromDeclaredPaths chooses the entry and source root of repositories laid out
// like public ones, from the spec.paths their bootstrap directory's Kustomizations declare.
func TestDetectLayoutFromDeclaredPaths(t *testing.T) {
	ks := func(name, p string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: " + name +
			"\n  namespace: flux-system\nspec:\n  path: " + p + "\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	}
	gotkSync := func(p string) string {
		return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\n---\n" + ks("flux-system", p)
	}
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: media\n"
	cases := []struct {
		name               string
		files              map[string]string
		sourceRoot, entry  string
		wantRoot, wantPath string
		wantHow            string
		wantErr            string
	}{
		// https://github.com/onedr0p/home-ops at d9078e4dd52174ad68a4408ca3398f731b2f889e:
		// a FluxInstance syncs kubernetes/flux/cluster, whose ks.yaml names ./kubernetes/apps.
		{name: "kubernetes/flux/cluster", files: map[string]string{
			"kubernetes/flux/cluster/ks.yaml":      ks("cluster-apps", "./kubernetes/apps"),
			"kubernetes/apps/media/namespace.yaml": ns,
			".github/labels.yaml":                  "- name: area/kubernetes\n",
		}, wantRoot: ".", wantPath: "kubernetes/flux/cluster", wantHow: "name paths from there (./kubernetes/apps)"},
		// https://github.com/krobertson/home-ops at 405c530a0b3a3a8f965822cf7aea816fa8b52521.
		{name: "setup/flux/cluster", files: map[string]string{
			"setup/flux/cluster/ks.yaml":                 ks("cluster-meta", "./setup/flux/repositories") + "---\n" + ks("cluster-apps", "./kubernetes"),
			"setup/flux/repositories/app-template.yaml":  ns,
			"kubernetes/media/plex/app/helmrelease.yaml": ns,
		}, wantRoot: ".", wantPath: "setup/flux/cluster"},
		{name: "flux/cluster naming no path", files: map[string]string{"kubernetes/flux/cluster/kustomization.yaml": "resources: []\n"},
			wantRoot: ".", wantPath: "kubernetes/flux/cluster", wantHow: "names no spec.path"},
		// https://github.com/ddole-net/homelab at d8ca38e01e9e4afa9a5b70b8f707665d4af9f36d:
		// flux bootstrap --path=./k8s/clusters/prod, so every spec.path starts at the top.
		{name: "k8s/clusters/prod whose paths start at the top", files: map[string]string{
			"k8s/clusters/prod/flux-system/gotk-sync.yaml": gotkSync("./k8s/clusters/prod"),
			"k8s/clusters/prod/apps.yaml":                  ks("apps", "./k8s/apps"),
			"k8s/apps/authentik/namespace.yaml":            ns,
		}, wantRoot: ".", wantPath: "k8s/clusters/prod", wantHow: "not from k8s/"},
		{name: "a tenant's path from another source says nothing about the root", files: map[string]string{
			"k8s/clusters/prod/flux-system/gotk-sync.yaml": gotkSync("./k8s/clusters/prod"),
			"k8s/clusters/prod/tenant.yaml":                ks("team-a", "./deploy/prod"),
		}, wantRoot: ".", wantPath: "k8s/clusters/prod", wantHow: "(./k8s/clusters/prod), not from k8s/"},
		{name: "k8s/clusters/prod pushed as an artifact from k8s/", files: map[string]string{
			"k8s/clusters/prod/apps.yaml":  ks("apps", "./apps"),
			"k8s/apps/media/namespace.yml": ns,
		}, wantRoot: "k8s", wantPath: "clusters/prod", wantHow: "the only clusters/ directory is under k8s/"},
		{name: "two clusters", files: map[string]string{
			"clusters/prod/flux-system/gotk-sync.yaml":    gotkSync("./clusters/prod"),
			"clusters/staging/flux-system/gotk-sync.yaml": gotkSync("./clusters/staging"),
		}, wantErr: "several directories could be the entry path (clusters/prod, clusters/staging): choose one with --path"},
		{name: "clusters and a flux/cluster directory", files: map[string]string{
			"clusters/prod/flux-system/gotk-sync.yaml": gotkSync("./clusters/prod"),
			"kubernetes/flux/cluster/ks.yaml":          ks("cluster-apps", "./kubernetes/apps"),
			"kubernetes/apps/media/namespace.yaml":     ns,
		}, wantErr: "(clusters/prod, kubernetes/flux/cluster)"},
		{name: "a clusters directory that declares no Kustomization is not an entry beside one that does", files: map[string]string{
			"kubernetes/flux/cluster/ks.yaml":                  ks("cluster-apps", "./kubernetes/apps"),
			"kubernetes/apps/kube-system/clusters/rbac/a.yaml": ns,
		}, wantRoot: ".", wantPath: "kubernetes/flux/cluster"},
		{name: "entry given from a root its Kustomizations do not use", entry: "clusters/prod", files: map[string]string{
			"k8s/clusters/prod/flux-system/gotk-sync.yaml": gotkSync("./k8s/clusters/prod"),
			"k8s/apps/authentik/namespace.yaml":            ns,
		}, wantErr: "name their paths from the repository's top level (./k8s/clusters/prod), not from k8s/: give --path k8s/clusters/prod"},
		{name: "entry given from the top", entry: "k8s/clusters/prod", files: map[string]string{
			"k8s/clusters/prod/flux-system/gotk-sync.yaml": gotkSync("./k8s/clusters/prod"),
		}, wantRoot: ".", wantPath: "k8s/clusters/prod"},
		// https://github.com/krobertson/home-ops at ec9f5d89f9 (later than the case above): the
		// FluxInstance syncs setup/flux/config, no clusters/ or flux/cluster directory exists and
		// the top level holds a Taskfile, not a kustomization.yaml. Building the top level as the
		// entry failed to decode the Taskfile (UNKNOWN); the directory the bootstrap syncs was
		// then named in a refusal (exit 3) "so one of them is likely the entry" when it was the
		// only one. As the only one whose Kustomizations no other Kustomization builds, it is
		// used; two such directories are still refused, naming both.
		{name: "no bootstrap directory: the only unbuilt declarer is the entry", files: map[string]string{
			"setup/flux/config/ks.yaml":                ks("cluster-apps", "./kubernetes"),
			"kubernetes/media/plex/ks.yaml":            ks("plex", "./kubernetes/media/plex/app"),
			"kubernetes/media/plex/app/namespace.yaml": ns,
			".taskfiles/bootstrap/Taskfile.yaml":       "version: '3'\n",
		}, wantRoot: ".", wantPath: "setup/flux/config", wantHow: "the Kustomizations in setup/flux/config name paths from there (./kubernetes)"},
		{name: "no bootstrap directory: two unbuilt declarers are named", files: map[string]string{
			"setup/flux/config/ks.yaml":                ks("cluster-apps", "./kubernetes"),
			"staging/flux/config/ks.yaml":              ks("cluster-apps", "./kubernetes"),
			"kubernetes/media/plex/app/namespace.yaml": ns,
		}, wantErr: "declare Flux Kustomizations that no other Kustomization's path builds, so one of them is likely the entry: setup/flux/config, staging/flux/config: choose one with --path"},
		{name: "no bootstrap directory, a kustomization.yaml at the top: the top is the entry", files: map[string]string{
			"kustomization.yaml":                       "resources:\n- setup/flux/config\n",
			"setup/flux/config/ks.yaml":                ks("cluster-apps", "./kubernetes"),
			"kubernetes/media/plex/app/namespace.yaml": ns,
		}, wantRoot: ".", wantPath: "."},
		{name: "no Flux Kustomization anywhere: the top is the entry", files: map[string]string{
			"apps/namespace.yaml": ns,
		}, wantRoot: ".", wantPath: "."},
		// https://github.com/devantler-tech/platform at 2dc642957: k8s/clusters/base declares the
		// Kustomizations with placeholder paths (providers/__PROVIDER__/apps), and
		// k8s/clusters/prod and k8s/clusters/local build it as overlays that set the paths with
		// replacements. base was chosen as the only entry, and every path it named was missing.
		{name: "a clusters/ base that the other clusters/ directories build is not an entry", files: map[string]string{
			"k8s/clusters/base/kustomization.yaml":       "resources:\n- apps.yaml\n",
			"k8s/clusters/base/apps.yaml":                ks("apps", "providers/__PROVIDER__/apps"),
			"k8s/clusters/prod/kustomization.yaml":       "resources:\n- ../base\n- bootstrap/\n",
			"k8s/clusters/prod/bootstrap/namespace.yaml": ns,
			"k8s/clusters/local/kustomization.yaml":      "resources:\n  - ../base\n",
			"k8s/providers/hetzner/apps/namespace.yaml":  ns,
		}, wantErr: "several directories could be the entry path (k8s/clusters/local, k8s/clusters/prod): choose one with --path"},
		{name: "the only overlay of a clusters/ base is the entry", files: map[string]string{
			"k8s/clusters/base/kustomization.yaml": "resources:\n- apps.yaml\n",
			"k8s/clusters/base/apps.yaml":          ks("apps", "./apps"),
			"k8s/clusters/prod/kustomization.yaml": "resources:\n- ../base\n",
			"k8s/apps/namespace.yaml":              ns,
		}, wantRoot: "k8s", wantPath: "clusters/prod"},
		// https://github.com/JiwooL0920/fleet-infra at 3291d01: flux bootstrap synced
		// clusters/stages/dev/clusters/services-amer; clusters/stages groups the stages and no
		// Kustomization builds it, so it is no entry (it was refused beside the real one).
		{name: "a clusters/<name> directory grouping other clusters is not an entry", files: map[string]string{
			"clusters/stages/dev/clusters/services-amer/flux-system/gotk-sync.yaml": gotkSync("./clusters/stages/dev/clusters/services-amer"),
			"clusters/stages/dev/clusters/services-amer/kustomization.yaml":         "resources:\n- flux-system\n- ../../base\n",
			"clusters/stages/dev/base/kustomization.yaml":                           "resources:\n- ../../../../base\n",
			"base/kustomization.yaml":                                               "resources:\n- apps.yaml\n",
			"base/apps.yaml":                                                        ks("apps", "./apps"),
			"apps/namespace.yaml":                                                   ns,
		}, wantRoot: ".", wantPath: "clusters/stages/dev/clusters/services-amer"},
		{name: "a grouping directory a Kustomization builds stays a candidate", files: map[string]string{
			"clusters/stages/flux-system/gotk-sync.yaml":    gotkSync("./clusters/stages"),
			"clusters/stages/dev/clusters/a/gotk-sync.yaml": gotkSync("./clusters/stages/dev/clusters/a"),
		}, wantErr: "several directories could be the entry path (clusters/stages, clusters/stages/dev/clusters/a)"},
		{name: "given root holding flux/cluster", sourceRoot: "deploy", files: map[string]string{
			"deploy/flux/cluster/ks.yaml": ks("apps", "./apps"), "deploy/apps/a.yaml": ns,
		}, wantRoot: "deploy", wantPath: "flux/cluster"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			if err := incident.WriteFiles(top, tc.files); err != nil {
				t.Fatal(err)
			}
			l, err := Detect(top, tc.sourceRoot, tc.entry, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q (layout %+v)", err, tc.wantErr, l)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.SourceRoot != tc.wantRoot || l.Entry != tc.wantPath || !strings.Contains(l.SourceRootHow, tc.wantHow) || l.EntryHow == "" {
				t.Errorf("layout %+v, want root %q (how containing %q) entry %q", l, tc.wantRoot, tc.wantHow, tc.wantPath)
			}
		})
	}
}

func TestKustomizationPaths(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string
	}{
		{"flux kustomizations among other documents", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec:\n  path: ./k8s/apps/\n  sourceRef: {kind: GitRepository, name: flux-system}\n", []string{"k8s/apps"}},
		{"an ExternalArtifact's path is the artifact's", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec:\n  path: ./production\n  sourceRef: {kind: ExternalArtifact, name: apps}\n", nil},
		{"the source's own root says nothing", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec:\n  path: ./\n  sourceRef: {kind: OCIRepository, name: a}\n", nil},
		{"kustomize's own Kustomization is not Flux's", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nspec: {path: ./x}\n", nil},
		{"a path with variables says nothing", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec: {path: ./clusters/${CLUSTER}, sourceRef: {kind: GitRepository}}\n", nil},
		{"an alias is never followed", "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nx: &p ./a\nspec: {path: *p, sourceRef: {kind: GitRepository}}\n", nil},
		{"not YAML", "\t: : [", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := kustomizationPaths([]byte(tc.data)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("paths %q, want %q", got, tc.want)
			}
		})
	}
}
