package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// operatorStorageRepo is an app laid out as rcdailey/home-ops lays out bookstack before
// https://github.com/rcdailey/home-ops/commit/775bf1b1 (kubernetes/apps/default/bookstack: a
// HelmRelease, a MariaDB of mariadb-operator with `spec.storage.size`, listed in the app's
// kustomization.yaml), with soulwhisper/homelab-ops's Dragonfly component beside it
// (https://github.com/soulwhisper/homelab-ops/tree/43ac0116/kubernetes/components/dragonfly: an
// in-memory cache that asks for no storage). That commit removed the app with its claim, so it was
// UNSAFE for the claim; the MariaDB, whose operator made the database's volume from it, was
// listed as plainly pruned. A change that drops only the database said SAFE.
func operatorStorageRepo(resources ...string) map[string]string {
	return map[string]string{
		"kubernetes/flux/cluster/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: bookstack
  namespace: flux-system
spec:
  targetNamespace: default
  path: ./kubernetes/apps/default/bookstack
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"kubernetes/apps/default/bookstack/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + strings.Join(resources, "\n- ") + "\n",
		"kubernetes/apps/default/bookstack/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: bookstack
data:
  TZ: America/Chicago
`,
		"kubernetes/apps/default/bookstack/mariadb.yaml": `apiVersion: k8s.mariadb.com/v1alpha1
kind: MariaDB
metadata:
  name: bookstack-mariadb
spec:
  database: bookstackapp
  port: 3306
  storage:
    size: 5Gi
    storageClassName: ceph-block
`,
		"kubernetes/apps/default/bookstack/dragonfly.yaml": `apiVersion: dragonflydb.io/v1alpha1
kind: Dragonfly
metadata:
  name: bookstack-dragonfly
spec:
  replicas: 1
  resources:
    limits:
      memory: 1024Mi
`,
		"kubernetes/apps/default/bookstack/crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dragonflies.dragonflydb.io
spec:
  group: dragonflydb.io
  names:
    kind: Dragonfly
    plural: dragonflies
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas:
                  type: integer
`,
	}
}

// Dropping the MariaDB alone is UNSAFE; dropping the cache alone is SAFE when its CRD is in the
// repository and shows no deletion policy, so the rule is not "every custom resource", and
// UNKNOWN when nothing the gate reads shows what its operator does (TestCustomResourceState).
func TestOperatorStorageDropped(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, kept []string
		code       int
		want       []string
	}{
		{"the database", nil, []string{"configmap.yaml", "dragonfly.yaml"}, 1, []string{
			"UNSAFE MariaDB default/bookstack-mariadb (kubernetes/apps/default/bookstack/mariadb.yaml)",
			"its operator makes storage from it, spec.storage.size: 5Gi;", "verdict: UNSAFE (exit 1)"}},
		{"the cache", nil, []string{"configmap.yaml", "mariadb.yaml"}, 2, []string{
			"pruned Dragonfly default/bookstack-dragonfly", "no CRD of Dragonfly.dragonflydb.io is in the repository's builds", "verdict: UNKNOWN (exit 2)"}},
		{"the cache, its CRD in the repository", []string{"configmap.yaml", "crd.yaml", "mariadb.yaml", "dragonfly.yaml"}, []string{"configmap.yaml", "crd.yaml", "mariadb.yaml"}, 0, []string{
			"pruned Dragonfly default/bookstack-dragonfly", "verdict: SAFE (exit 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := []string{"configmap.yaml", "mariadb.yaml", "dragonfly.yaml"}
			if tc.base != nil {
				files = tc.base
			}
			r := gittest.New(t, operatorStorageRepo(files...))
			base := r.Git("rev-parse", "HEAD")
			r.Write(operatorStorageRepo(tc.kept...))
			out, errOut, code := offlineGate(t, r.Dir, "kubernetes/flux/cluster", base)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			outputHas(t, out, tc.want...)
		})
	}
}

// brokenParentRepo is laid out as soulwhisper/homelab-ops is at
// https://github.com/soulwhisper/homelab-ops/commit/73862829: kubernetes/flux/cluster declares
// cluster-apps (path ./kubernetes/apps), whose build declares each app's Kustomization; that
// commit made kubernetes/apps/media-apps/kustomization.yaml name ./opencloud/ks.yaml before any
// such file existed. kubernetes/apps then does not build, so kustomize-controller applies and
// prunes nothing of that revision, and every app stays. The gate took every app for deleted
// and called their claims UNSAFE.
func brokenParentRepo(appKS string) map[string]string {
	return map[string]string{
		"kubernetes/flux/cluster/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: cluster-apps
  namespace: flux-system
spec:
  path: ./kubernetes/apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"kubernetes/apps/kustomization.yaml":            "resources:\n- ./media-apps\n",
		"kubernetes/apps/media-apps/kustomization.yaml": "resources:\n- " + appKS + "\n",
		"kubernetes/apps/media-apps/ocis/ks.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ocis
  namespace: media-apps
spec:
  targetNamespace: media-apps
  path: ./kubernetes/apps/media-apps/ocis/app
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
`,
		"kubernetes/apps/media-apps/ocis/app/pvc.yaml": `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ocis
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 5Gi
`,
	}
}

func TestParentNotBuiltAtCandidate(t *testing.T) {
	r := gittest.New(t, brokenParentRepo("./ocis/ks.yaml"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(brokenParentRepo("./opencloud/ks.yaml"))
	out, errOut, code := offlineGate(t, r.Dir, "kubernetes/flux/cluster", base)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (UNKNOWN)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "Kustomization flux-system/cluster-apps (path kubernetes/apps) at the candidate",
		"kubernetes/apps/media-apps/opencloud/ks.yaml",
		"Kustomization media-apps/ocis: Kustomization flux-system/cluster-apps, which declares it, does not build at the candidate",
		"verdict: UNKNOWN (exit 2)")
	if strings.Contains(out, "UNSAFE PersistentVolumeClaim") {
		t.Errorf("a claim of an app its unbuilt parent still declares was called UNSAFE\n%s", out)
	}
}

// tenantAppsRepo is laid out as terotuomala/gitops-flux2-example is at
// https://github.com/terotuomala/gitops-flux2-example/tree/80fb2bb/clusters/production: the
// entry holds infrastructure, built from the bootstrap's GitRepository flux-system (whose
// gotk-sync.yaml is not committed), and two apps built from their own GitRepositories, which
// infrastructure/sources declares. The repository's own source was taken as the one most
// Kustomizations use, the tie going by name to api: infrastructure was "another source" and
// the gate refused every commit (exit 3, no Kustomization's path in the repository).
func tenantAppsRepo(claim bool) map[string]string {
	app := func(name string) string {
		return `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
  dependsOn:
    - name: infrastructure
  path: ./k8s/overlays/production/` + name + `
  prune: true
  sourceRef:
    kind: GitRepository
    name: ` + name + `
`
	}
	files := map[string]string{
		"clusters/production/infrastructure.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: infrastructure
  namespace: flux-system
spec:
  path: ./infrastructure
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"clusters/production/apps.yaml":     app("api") + "---\n" + app("client"),
		"infrastructure/kustomization.yaml": "resources:\n- sources.yaml\n",
		"infrastructure/sources.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: api
  namespace: flux-system
spec:
  interval: 1m
  url: https://github.com/terotuomala/k8s-express-api-example
  ref:
    branch: main
`,
	}
	if claim {
		files["infrastructure/kustomization.yaml"] = "resources:\n- sources.yaml\n- redis.yaml\n"
		files["infrastructure/redis.yaml"] = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: redis-data
  namespace: redis
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`
	}
	return files
}

func TestRepositorySourceWithoutRootKustomization(t *testing.T) {
	r := gittest.New(t, tenantAppsRepo(true))
	base := r.Git("rev-parse", "HEAD")
	r.Git("rm", "-q", "infrastructure/redis.yaml")
	r.Write(tenantAppsRepo(false))
	out, errOut, code := offlineGate(t, r.Dir, "clusters/production", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "UNSAFE PersistentVolumeClaim redis/redis-data (infrastructure/redis.yaml)",
		"flux-system/api: its source GitRepository/flux-system/api is not the repository's (GitRepository/flux-system/flux-system)",
		"verdict: UNSAFE (exit 1)")
}
