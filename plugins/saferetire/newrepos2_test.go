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
	}
}

func TestOperatorStorageDropped(t *testing.T) {
	r := gittest.New(t, operatorStorageRepo("configmap.yaml", "mariadb.yaml", "dragonfly.yaml"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(operatorStorageRepo("configmap.yaml", "dragonfly.yaml"))
	out, errOut, code := offlineGate(t, r.Dir, "kubernetes/flux/cluster", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "UNSAFE MariaDB default/bookstack-mariadb (kubernetes/apps/default/bookstack/mariadb.yaml)",
		"its operator makes storage from it, spec.storage.size: 5Gi;",
		"verdict: UNSAFE (exit 1)")
}

// The cache asks for no storage: dropping it alone stays SAFE, and so the rule above is not
// "every custom resource".
func TestOperatorWithoutStorageDropped(t *testing.T) {
	r := gittest.New(t, operatorStorageRepo("configmap.yaml", "mariadb.yaml", "dragonfly.yaml"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(operatorStorageRepo("configmap.yaml", "mariadb.yaml"))
	out, errOut, code := offlineGate(t, r.Dir, "kubernetes/flux/cluster", base)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (safe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "pruned Dragonfly default/bookstack-dragonfly", "verdict: SAFE (exit 0)")
}
