package gitops

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// ExternalArtifactRepo is a repository laid out as fluxcd/flux2-kustomize-helm-example is
// since "Update structure for Flux 2.7" (commit 2b8cffe,
// https://github.com/fluxcd/flux2-kustomize-helm-example/tree/4f1a5b1): the cluster directory
// declares an ArtifactGenerator that splits the repository's GitRepository into two
// ExternalArtifacts, and every Kustomization reads one of them with a path relative to the
// artifact. The apps tier carries a PVC so a removal has something to find; a third artifact is
// made from another repository.
func ExternalArtifactRepo() map[string]string {
	ks := func(name, artifact, path, deps string) string {
		return `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
` + deps + `  interval: 1h
  timeout: 5m
  sourceRef:
    kind: ExternalArtifact
    name: ` + artifact + `
  path: ` + path + `
  prune: true
  wait: true
`
	}
	return map[string]string{
		"clusters/production/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: https://github.com/example/fleet
  ref:
    branch: main
`,
		"clusters/production/flux-system/kustomization.yaml": "resources:\n- gotk-sync.yaml\n",
		"clusters/production/artifacts.yaml": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: flux-system
  namespace: flux-system
spec:
  sources:
    - alias: monorepo
      kind: GitRepository
      name: flux-system
    - alias: vendor
      kind: GitRepository
      name: vendor-configs
  artifacts:
    - name: infrastructure
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/infrastructure/**"
          to: "@artifact/"
    - name: apps
      originRevision: "@monorepo"
      copy:
        - from: "@monorepo/apps/base/**"
          to: "@artifact/base/"
        - from: "@monorepo/apps/production/**"
          to: "@artifact/production/"
    - name: vendor
      copy:
        - from: "@vendor/deploy/**"
          to: "@artifact/"
`,
		"clusters/production/apps.yaml":           ks("apps", "apps", "./production", "  dependsOn:\n    - name: infra-configs\n"),
		"clusters/production/infrastructure.yaml": ks("infra-controllers", "infrastructure", "./controllers", "") + ks("infra-configs", "infrastructure", "./configs", "  dependsOn:\n    - name: infra-controllers\n"),
		"clusters/production/vendor.yaml":         ks("vendor", "vendor", "./", ""),
		"apps/base/podinfo/kustomization.yaml":    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: podinfo\nresources:\n- namespace.yaml\n- release.yaml\n- data.yaml\n",
		"apps/base/podinfo/namespace.yaml":        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: podinfo\n",
		"apps/base/podinfo/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
spec:
  interval: 50m
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
`,
		"apps/base/podinfo/data.yaml":                   pvc("podinfo-data", "podinfo"),
		"apps/production/kustomization.yaml":            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../base/podinfo\n",
		"infrastructure/controllers/kustomization.yaml": "resources:\n- cert-manager.yaml\n",
		"infrastructure/controllers/cert-manager.yaml":  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n",
		"infrastructure/configs/kustomization.yaml":     "resources:\n- cluster-issuers.yaml\n",
		"infrastructure/configs/cluster-issuers.yaml":   "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: letsencrypt\nspec:\n  acme:\n    server: https://acme-staging-v02.api.letsencrypt.org/directory\n",
	}
}

func TestLoadExternalArtifacts(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := gittest.New(t, ExternalArtifactRepo())
	tree, err := Load(context.Background(), r.Dir, LoadOptions{Entry: "clusters/production"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "GitRepository/flux-system/flux-system"; tree.Source != want {
		t.Errorf("Source = %s, want %s", tree.Source, want)
	}
	want := map[string]string{
		"flux-system/apps":              "podinfo_podinfo-data__PersistentVolumeClaim",
		"flux-system/infra-controllers": "_cert-manager__Namespace",
		"flux-system/infra-configs":     "_letsencrypt_cert-manager.io_ClusterIssuer",
	}
	for id, obj := range want {
		tier := tree.Tiers[id]
		if tier == nil || tier.Err != nil || tier.NotCovered != "" {
			t.Fatalf("tier %s: %+v", id, tier)
		}
		if !strings.Contains(strings.Join(ids(tier.Objects), " "), obj) {
			t.Errorf("tier %s built %v, want %s", id, ids(tier.Objects), obj)
		}
		if !strings.Contains(tier.Generated, "made by ArtifactGenerator flux-system/flux-system") {
			t.Errorf("tier %s Generated = %q", id, tier.Generated)
		}
	}
	vendor := tree.Tiers["flux-system/vendor"]
	if vendor == nil || !strings.Contains(vendor.NotCovered, "GitRepository/flux-system/vendor-configs") {
		t.Errorf("vendor tier: %+v, want not covered naming the other source", vendor)
	}
	if got := strings.Join(tree.GeneratedSources(), " "); got != "ExternalArtifact/flux-system/apps ExternalArtifact/flux-system/infrastructure ExternalArtifact/flux-system/vendor" {
		t.Errorf("GeneratedSources = %s", got)
	}
	withFiles := tree.WithFiles(context.Background(), "flux-system/apps")
	for i, o := range withFiles.Objects {
		if o.GetKind() == "PersistentVolumeClaim" && withFiles.FileAt(i) != "apps/base/podinfo/data.yaml" {
			t.Errorf("the claim's file = %q, want the repository's apps/base/podinfo/data.yaml", withFiles.FileAt(i))
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("materialised artifacts left behind: %v", left)
	}
}
