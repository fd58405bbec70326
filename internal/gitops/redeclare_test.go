package gitops

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// named is ksYAML with the Kustomization's name.
func named(name, path, spec string) string {
	return strings.Replace(ksYAML(path, spec), "name: test", "name: "+name, 1)
}

// redeclareCases are repositories whose Kustomizations Flux reads only after a substitution the
// entry's plain build cannot make, with the tier and path Flux builds.
func redeclareCases() []struct {
	name    string
	entry   string
	files   map[string]string
	tier    string // the tier Flux builds, the path it reads and the one object it has
	path    string
	object  string
	missing string // a tier the unsubstituted build would have had
} {
	return []struct {
		name    string
		entry   string
		files   map[string]string
		tier    string
		path    string
		object  string
		missing string
	}{{
		// Modelled on hmcts/admin-flux-config at 84ba14b: clusters/base/flux-system declares
		// the root and the tenants Kustomization with paths of ${TENANT}/${ENVIRONMENT};
		// the cluster's entry patches the root's postBuild.substitute, and the root, which
		// builds the entry again, substitutes the tenants' path.
		name:  "the root Kustomization's own postBuild.substitute",
		entry: "clusters/dev/staging",
		files: map[string]string{
			"clusters/base/kustomization.yaml":        "resources:\n- root.yaml\n- tenants.yaml\n",
			"clusters/base/root.yaml":                 named("flux-system", "./clusters/${TENANT}/${ENVIRONMENT}", ""),
			"clusters/base/tenants.yaml":              named("tenants", "./tenants/${TENANT}/${ENVIRONMENT}", ""),
			"clusters/dev/staging/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: root.yaml\n",
			"clusters/dev/staging/root.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  path: ./clusters/dev/staging
  postBuild:
    substitute:
      TENANT: dev
      ENVIRONMENT: staging
`,
			"tenants/dev/staging/pvc.yaml": pvc("team-data", "dev"),
		},
		tier: "flux-system/tenants", path: "tenants/dev/staging", object: "dev_team-data__PersistentVolumeClaim",
	}, {
		// Modelled on angelnu/k8s-gitops at 0c016d4ab: cluster-apps substitutes from the
		// ConfigMap cluster-vars applies in the same level, and a child's path and name
		// name ${CLUSTER_NAME}.
		name:  "a substitution source another tier of the same level declares",
		entry: "clusters/prod/config",
		files: map[string]string{
			"clusters/prod/config/kustomization.yaml": "resources:\n- vars.yaml\n- apps.yaml\n",
			"clusters/prod/config/vars.yaml":          named("cluster-vars", "./clusters/prod/vars", ""),
			"clusters/prod/config/apps.yaml": named("cluster-apps", "./apps", `  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
`),
			"clusters/prod/vars/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  CLUSTER_NAME: prod\n",
			"apps/kustomization.yaml":          "resources:\n- ks.yaml\n",
			"apps/ks.yaml":                     named("${CLUSTER_NAME}-secret", "./apps/secret/${CLUSTER_NAME}", ""),
			"apps/secret/prod/pvc.yaml":        pvc("gateway", "vpn"),
			"apps/secret/test/pvc.yaml":        pvc("gateway-test", "vpn"),
		},
		tier: "flux-system/prod-secret", path: "apps/secret/prod", object: "vpn_gateway__PersistentVolumeClaim",
		missing: "flux-system/${CLUSTER_NAME}-secret",
	}, {
		// Modelled on angelnu/k8s-gitops at 0c016d4ab: paperless, which cluster-apps gives
		// substituteFrom, applies a ResourceSet; once paperless is built again with the
		// sources, the ResourceSet's tier is what the substituted ResourceSet renders (the
		// first version of this rule dropped it, and a claim dropped from its HelmReleases'
		// values was SAFE).
		name:  "a ResourceSet applied by a tier built again with its substitution sources",
		entry: "clusters/prod/config",
		files: map[string]string{
			"clusters/prod/config/kustomization.yaml": "resources:\n- vars.yaml\n- apps.yaml\n",
			"clusters/prod/config/vars.yaml":          named("cluster-vars", "./clusters/prod/vars", ""),
			"clusters/prod/config/apps.yaml": named("cluster-apps", "./apps", `  postBuild:
    substituteFrom:
    - kind: ConfigMap
      name: cluster-settings
`),
			"clusters/prod/vars/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  CLUSTER_NAME: prod\n",
			"apps/kustomization.yaml":          "resources:\n- rset.yaml\n",
			"apps/rset.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: paperless
  namespace: flux-system
spec:
  inputs:
  - name: casa
  resources:
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: << inputs.name >>-${CLUSTER_NAME}
      namespace: paperless
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`,
		},
		tier: "ResourceSet/flux-system/paperless", object: "paperless_casa-prod__PersistentVolumeClaim",
	}}
}

// TestKustomizationsAsTheirParentAppliesThem holds the rule that a Kustomization is what the
// tier that applies it declares once that tier is built with its own substitution sources:
// before, the children were taken from a build without them and their paths
// (apps/vpn-gateway/secret/${CLUSTER_NAME}, tenants/${TENANT}/${ENVIRONMENT}) were "not found"
// on every commit of those repositories. The incremental pair load gives the same tiers.
func TestKustomizationsAsTheirParentAppliesThem(t *testing.T) {
	for _, tc := range redeclareCases() {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			if err := incident.WriteFiles(top, tc.files); err != nil {
				t.Fatal(err)
			}
			tree, err := Load(context.Background(), top, LoadOptions{Entry: tc.entry})
			if err != nil {
				t.Fatal(err)
			}
			checkRedeclared(t, "Load", tree, tc.tier, tc.path, tc.object, tc.missing)

			g := gittest.New(t, tc.files)
			repo, err := gitrev.OpenRepo(g.Dir)
			if err != nil {
				t.Fatal(err)
			}
			base := g.Git("rev-parse", "HEAD")
			extra := map[string]string{"unrelated/notes.yaml": "a: 1\n"}
			cand := g.Commit("unrelated", extra)
			changes, err := repo.Changes(t.Context(), base, cand)
			if err != nil {
				t.Fatal(err)
			}
			opts := LoadOptions{Entry: tc.entry, NoFiles: true}
			pb, pc, errB, errC := LoadPair(t.Context(), snapshot(t, repo, base).Dir, snapshot(t, repo, cand).Dir, opts, changes)
			if errB != nil || errC != nil {
				t.Fatal(errB, errC)
			}
			checkRedeclared(t, "LoadPair base", pb, tc.tier, tc.path, tc.object, tc.missing)
			checkRedeclared(t, "LoadPair candidate", pc, tc.tier, tc.path, tc.object, tc.missing)
		})
	}
}

func checkRedeclared(t *testing.T, how string, tree *Tree, id, path, object, missing string) {
	t.Helper()
	tier := tree.Tiers[id]
	if tier == nil {
		t.Fatalf("%s: no tier %s among %v", how, id, tree.IDs())
	}
	if tier.Kustomization.Path != path {
		t.Errorf("%s: %s has path %s, want %s", how, id, tier.Kustomization.Path, path)
	}
	if tier.Err != nil {
		t.Errorf("%s: %s did not build: %v", how, id, tier.Err)
	}
	if missing != "" && slices.Contains(tree.IDs(), missing) {
		t.Errorf("%s: the tier %s of the unsubstituted build is still there", how, missing)
	}
	if got := ids(tier.Objects); !tier.NotBuilt() && !slices.Equal(got, []string{object}) {
		t.Errorf("%s: %s built %v, want %s", how, id, got, object)
	}
}
