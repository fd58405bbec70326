package sourceroot

import (
	"path"
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
		// wrmilling/k3s-gitops: flux-system/gotk-sync.yaml's root builds ./, the top level with
		// no kustomization.yaml, and so every app's ks.yaml below it, two of which build their
		// own directory. Those two were refused as roots and the top level was not named.
		{name: "a root building ./ and the self-syncing children its build reaches", files: map[string]string{
			"flux-system/kustomization.yaml":          "resources:\n- gotk-sync.yaml\n",
			"flux-system/gotk-sync.yaml":              fluxKS("flux-system", "./"),
			"kube-system/volsync/ks.yaml":             fluxKS("volsync", "./kube-system/volsync"),
			"kube-system/snapshot-controller/ks.yaml": fluxKS("snapshot-controller", "./kube-system/snapshot-controller"),
			"media/namespace.yaml":                    mediaNS,
		}, wantPath: ".", wantHow: "the directory a Kustomization declared in it builds"},
		{name: "a self-syncing directory the outer root's kustomization file does not reach is a root", files: map[string]string{
			"kubernetes/flux/kustomization.yaml":  "resources:\n- config\n",
			"kubernetes/flux/config/cluster.yaml": fluxKS("cluster", "./kubernetes/flux"),
			"kubernetes/flux/legacy/sync/ks.yaml": fluxKS("legacy", "./kubernetes/flux/legacy"),
		}, wantErr: "several directories are built by a Kustomization declared in them, as a bootstrap's root is (kubernetes/flux, kubernetes/flux/legacy)"},
		// gabe565/home-ops: each cluster's config declares its root (./kubernetes/<c>/cluster,
		// from the repository's GitRepository) and a Kustomization building ./ of Flux's own
		// manifests (an OCIRepository no other Kustomization reads). The latter was taken as a
		// root building the top level, which then held both clusters.
		{name: "a Kustomization building ./ of another artifact is no root", files: map[string]string{
			"k/a/cluster/config/cluster.yaml": fluxKS("cluster", "./k/a/cluster"),
			"k/a/cluster/config/flux.yaml":    strings.Replace(fluxKS("flux", "./"), "kind: GitRepository\n    name: flux-system", "kind: OCIRepository\n    name: flux-manifests", 1),
			"k/b/cluster/config/cluster.yaml": fluxKS("cluster", "./k/b/cluster"),
			"k/b/cluster/config/flux.yaml":    strings.Replace(fluxKS("flux", "./"), "kind: GitRepository\n    name: flux-system", "kind: OCIRepository\n    name: flux-manifests", 1),
		}, wantErr: "several directories are built by a Kustomization declared in them, as a bootstrap's root is (k/a/cluster, k/b/cluster)"},
		{name: "the top level built whole says so", files: map[string]string{
			"kustomization.yaml":             "resources:\n- setup/flux/config\n",
			"setup/flux/config/ks.yaml":      fluxKS("cluster-apps", "./kubernetes"),
			"kubernetes/apps/namespace.yaml": mediaNS,
		}, wantPath: ".", wantHow: "built whole"},
		{name: "no Flux Kustomization anywhere says so", files: map[string]string{
			"components/web/base/kustomization.yaml":       "resources:\n- namespace.yaml\n",
			"components/web/base/namespace.yaml":           mediaNS,
			"components/web/production/kustomization.yaml": "resources:\n- ../base\n",
		}, wantPath: ".", wantHow: "no file read here declares a Flux Kustomization"},
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
			if tc.wantPath == "." && !strings.Contains(l.EntryHow, "declared in it") && !strings.Contains(l.EntryHow, "--path") {
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

// An entry given from the top level inside a directory pushed as a repository of its own:
// aws-samples/eks-multi-cluster-gitops keeps the fleet repository in repos/gitops-system, whose
// clusters/mgmt declares the root Kustomization (./clusters/mgmt) and tools (./tools/crossplane),
// paths from repos/gitops-system. Given as --path repos/gitops-system/clusters/mgmt, the top
// level was taken for the source root and every Kustomization's path was "not found"; the
// source root is where the paths the entry declares resolve, and the entry is given from it.
// The top level stays when those paths resolve there.
func TestDetectEntryGivenFromTheTop(t *testing.T) {
	mono := map[string]string{
		"repos/gitops-system/clusters/mgmt/flux-system/gotk-sync.yaml": fluxKS("flux-system", "./clusters/mgmt"),
		"repos/gitops-system/clusters/mgmt/crossplane.yaml":            fluxKS("crossplane", "./tools/crossplane"),
		"repos/gitops-system/tools/crossplane/ns.yaml":                 mediaNS,
		"repos/gitops-workloads/template/app/ns.yaml":                  mediaNS,
	}
	top := t.TempDir()
	if err := incident.WriteFiles(top, mono); err != nil {
		t.Fatal(err)
	}
	l, err := Detect(top, "", "repos/gitops-system/clusters/mgmt/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.SourceRoot != "repos/gitops-system" || l.Entry != "clusters/mgmt" || !strings.Contains(l.SourceRootHow, "./clusters/mgmt") {
		t.Errorf("layout %+v, want source root repos/gitops-system, entry clusters/mgmt, saying why", l)
	}

	flat := map[string]string{
		"clusters/prod/apps.yaml":    fluxKS("apps", "./apps"),
		"clusters/prod/infra.yaml":   fluxKS("infra", "./clusters/prod/infra"),
		"apps/ns.yaml":               mediaNS,
		"clusters/prod/infra/a.yaml": mediaNS,
	}
	top = t.TempDir()
	if err := incident.WriteFiles(top, flat); err != nil {
		t.Fatal(err)
	}
	if l, err := Detect(top, "", "clusters/prod", nil); err != nil || l.SourceRoot != "." || l.Entry != "clusters/prod" {
		t.Errorf("layout %+v (%v), want the top level and clusters/prod", l, err)
	}
}

// Many directories that declare Kustomizations, all under one: mirceanton/home-ops keeps each
// app's ks.yaml in apps/<namespace>/<app>/, and a FluxInstance (inside a HelmRelease's values,
// not an object the repository declares) syncs apps/, which has no kustomization.yaml. The
// refusal named all 85 directories; it names where they are, and that directory as the likely
// entry. A few directories are still named one by one.
func TestRefusalNamesWhereDeclarersAre(t *testing.T) {
	files := map[string]string{}
	for _, app := range []string{"ai/litellm", "ai/hermes", "default/homer", "media/immich", "media/jellyfin", "tools/drawio", "kube-system/cilium"} {
		files["apps/"+app+"/app.ks.yaml"] = fluxKS(path.Base(app), "./apps/"+app+"/app")
		files["apps/"+app+"/app/ns.yaml"] = mediaNS
	}
	top := t.TempDir()
	if err := incident.WriteFiles(top, files); err != nil {
		t.Fatal(err)
	}
	_, err := Detect(top, "", "", nil)
	if err == nil || !strings.Contains(err.Error(), "7 directories under apps/") || !strings.Contains(err.Error(), "the entry is likely apps") || strings.Contains(err.Error(), "tools/drawio") {
		t.Errorf("err %v, want the 7 directories named by where they are, apps", err)
	}
	if got := commonDir([]string{"devenv/oci/flux", "kubernetes/main/flux", "kubernetes/utility/flux"}); got != "" {
		t.Errorf("commonDir of three trees = %q, want none", got)
	}
}

// budimanjojo/home-cluster: a kustomize Component (components/postgres-database) that apps
// include through their Flux Kustomization's spec.components includes in turn a Component
// declaring a Flux Kustomization. That directory was named beside cluster/base as a likely
// entry; a directory reached by a declared Kustomization's build, through spec.components
// (resolved against its spec.path) or kustomization files, is built by it, not an entry, so
// cluster/base, the only one left, is.
func TestComponentsDeclaringKustomizationsAreNotEntries(t *testing.T) {
	app := fluxKS("firefly", "./cluster/apps/default/firefly/base") +
		"  components:\n  - ../../../../components/postgres\n"
	top := t.TempDir()
	if err := incident.WriteFiles(top, map[string]string{
		"cluster/base/root.yaml":                             fluxKS("cluster-apps", "./cluster/apps"),
		"cluster/apps/default/firefly/ks.yaml":               app,
		"cluster/apps/default/firefly/base/namespace.yaml":   mediaNS,
		"cluster/components/postgres/kustomization.yaml":     "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncomponents:\n- ./db\n",
		"cluster/components/postgres/db/kustomization.yaml":  "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n- ks.yaml\n",
		"cluster/components/postgres/db/ks.yaml":             fluxKS("db", "./cluster/components/postgres/db/base"),
		"cluster/components/postgres/db/base/namespace.yaml": mediaNS,
	}); err != nil {
		t.Fatal(err)
	}
	l, err := Detect(top, "", "", nil)
	if err != nil || l.Entry != "cluster/base" || l.SourceRoot != "." {
		t.Errorf("layout %+v (%v), want cluster/base, the only directory whose Kustomizations nothing builds, as the entry", l, err)
	}
	if got := strings.Join(Entries(top), ", "); got != "cluster/base" {
		t.Errorf("Entries = %q, want cluster/base", got)
	}
}
