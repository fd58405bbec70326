package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// sharedSourceRepo keeps a chart's OCIRepository in one tier and the HelmRelease that reads it
// in another, as xunholy/k8s-gitops keeps its Helm repositories
// (https://github.com/xunholy/k8s-gitops/tree/c56dc9de4/kubernetes/apps/base/flux-system/repositories)
// and szinn/k8s-homelab's konflate-staging reads the OCIRepository konflate-main declares
// (https://github.com/szinn/k8s-homelab/commit/8c8742b00, a chart bump there). The incremental
// gate built only the tier the bump touched, and said SAFE; --full said UNKNOWN.
func sharedSourceRepo(tag string) map[string]string {
	return map[string]string{
		"clusters/main/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: repositories
  namespace: flux-system
spec:
  path: ./repositories
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: podinfo
  namespace: flux-system
spec:
  dependsOn:
    - name: repositories
  path: ./apps/podinfo
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"repositories/podinfo.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: podinfo
  namespace: flux-system
spec:
  interval: 1h
  url: oci://ghcr.io/stefanprodan/charts/podinfo
  ref:
    tag: ` + tag + `
`,
		"apps/podinfo/helmrelease.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  interval: 1h
  chartRef:
    kind: OCIRepository
    name: podinfo
    namespace: flux-system
`,
	}
}

func TestChartSourceInAnotherTier(t *testing.T) {
	r := gittest.New(t, sharedSourceRepo("6.5.0"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(sharedSourceRepo("6.6.0"))
	out, errOut, code := offlineGate(t, r.Dir, "clusters/main", base)
	if code != 2 {
		t.Fatalf("exit %d, want 2 (UNKNOWN)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "HelmRelease podinfo/podinfo (Kustomization flux-system/podinfo): the candidate changes the chart its source OCIRepository flux-system/podinfo serves",
		"verdict: UNKNOWN (exit 2)")
}

// fleetEntry is d2-fleet's clusters/staging
// (https://github.com/controlplaneio-fluxcd/d2-fleet/tree/64e4953/clusters/staging): the entry
// holds the FluxInstance that syncs it, beside a Kustomization of tenants. No Kustomization in
// the repository builds the entry, so what the entry itself stopped declaring was judged by
// nothing: dropping the FluxInstance, which uninstalls Flux and its CRDs, said "Nothing is
// removed … SAFE".
func fleetEntry(withInstance bool) map[string]string {
	files := tenantsRepo("frontend")
	if withInstance {
		files["clusters/staging/flux-instance.yaml"] = fluxInstanceYAML("clusters/staging")
	}
	return files
}

func TestFluxInstanceDropped(t *testing.T) {
	r := gittest.New(t, fleetEntry(true))
	base := r.Git("rev-parse", "HEAD")
	r.Git("rm", "-q", "clusters/staging/flux-instance.yaml")
	out, errOut, code := offlineGate(t, r.Dir, "clusters/staging", base)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "Kustomization flux-system/flux-system",
		"UNSAFE FluxInstance flux-system/flux (clusters/staging/flux-instance.yaml)",
		"the Flux Operator uninstalls Flux with its CRDs",
		"verdict: UNSAFE (exit 1)")
}

// d2-fleet 89d842c (https://github.com/controlplaneio-fluxcd/d2-fleet/commit/89d842c) dropped
// helm-controller and notification-controller from clusters/update's FluxInstance: the operator
// deletes their CRDs, and with them every HelmRelease, Alert and Provider in the cluster. The
// gate said SAFE: a FluxInstance's spec was not read.
func TestFluxInstanceComponents(t *testing.T) {
	withComponents := func(list ...string) map[string]string {
		files := fleetEntry(true)
		spec := "spec:\n  components:\n"
		for _, c := range list {
			spec += "    - " + c + "\n"
		}
		files["clusters/staging/flux-instance.yaml"] = strings.Replace(files["clusters/staging/flux-instance.yaml"], "spec:\n", spec, 1)
		return files
	}
	r := gittest.New(t, fleetEntry(true)) // no components: the operator's four
	base := r.Git("rev-parse", "HEAD")

	t.Run("components dropped are unknown", func(t *testing.T) {
		out := gateAfter(t, r, withComponents("source-controller", "kustomize-controller", "image-reflector-controller"), "clusters/staging", base, 2)
		outputHas(t, out, "FluxInstance flux-system/flux: the candidate drops its components helm-controller, notification-controller", "verdict: UNKNOWN (exit 2)")
	})
	t.Run("a component added drops nothing", func(t *testing.T) {
		gateAfter(t, r, withComponents("source-controller", "kustomize-controller", "helm-controller", "notification-controller", "source-watcher"), "clusters/staging", base, 0)
	})
}
