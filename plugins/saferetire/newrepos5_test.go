package saferetire_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// workloadClusterChart is a chart kept in the repository that renders a Cluster API workload
// cluster and the Flux Kustomization that syncs it, as microsoft/multicluster-gitops'
// capi/charts/azure/aks-cluster-chart does.
func workloadClusterChart() map[string]string {
	return map[string]string{
		"charts/aks-cluster/Chart.yaml":  "apiVersion: v2\nname: aks-cluster\nversion: 0.0.7\n",
		"charts/aks-cluster/values.yaml": "name: example\n",
		"charts/aks-cluster/templates/cluster.yaml": "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: {{ .Values.name }}\n" +
			"spec:\n  controlPlaneRef:\n    apiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha4\n    kind: AzureManagedControlPlane\n    name: {{ .Values.name }}-control-plane\n" +
			"---\napiVersion: exp.infrastructure.cluster.x-k8s.io/v1alpha4\nkind: AzureManagedControlPlane\nmetadata:\n  name: {{ .Values.name }}-control-plane\nspec:\n  version: v1.21.2\n",
		"charts/aks-cluster/templates/sync.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {{ .Values.name }}-infrastructure\n" +
			"spec:\n  interval: 3m\n  path: ./infra/base\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n" +
			"  kubeConfig:\n    secretRef:\n      name: {{ .Values.name }}-kubeconfig\n",
	}
}

func workloadClusterRelease(name string) string {
	return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "-helm-release\n  namespace: capi-worker-clusters\n" +
		"spec:\n  interval: 10m\n  chart:\n    spec:\n      chart: ./charts/aks-cluster\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n" +
		"  values:\n    name: " + name + "\n"
}

// Removing the HelmRelease of a workload cluster uninstalls a chart that renders Cluster API's
// Cluster, and Cluster API then deprovisions the cluster: UNSAFE. Before, the render was right
// and the Cluster was counted among the release's stateless objects: SAFE.
func TestWorkloadClusterReleaseRemoved(t *testing.T) {
	files := workloadClusterChart()
	files["clusters/mgmt/clusters.yaml"] = fluxKS("flux-system", "worker-clusters", "./capi/clusters", true)
	files["capi/clusters/north-aks/cluster-helm-release.yaml"] = workloadClusterRelease("north-aks")
	files["capi/clusters/pacific-aks/cluster-helm-release.yaml"] = workloadClusterRelease("pacific-aks")
	r := gittest.New(t, files)
	r.Git("rm", "--quiet", "capi/clusters/north-aks/cluster-helm-release.yaml")
	r.Commit("delete north-aks", nil)
	for _, mode := range [][]string{nil, {"--full"}} {
		args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD"}, mode...)
		out, errOut, code := invocation{}.raw(t, args...)
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1 (UNSAFE)\n%s\n%s", mode, code, out, errOut)
		}
		contains(t, out, "UNSAFE HelmRelease capi-worker-clusters/north-aks-helm-release")
		contains(t, out, "deletes Cluster capi-worker-clusters/north-aks")
		contains(t, out, "which deletes Kustomization capi-worker-clusters/north-aks-infrastructure, whose deletion prunes what it applied from path ./infra/base, on the cluster its kubeConfig names")
	}
}

// A chart that renders only a Flux Kustomization that prunes (a cluster's sync, without the
// cluster) deletes it on uninstall, and with it everything it applied: that is not judged, so
// the removal is UNKNOWN. Before, the Kustomization was one of the release's stateless
// objects: SAFE. Suspended, or with deletionPolicy Orphan, it deletes nothing it applied.
func TestReleaseRenderingAKustomizationRemoved(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		code        int
	}{
		{name: "prunes", code: 2},
		{name: "orphans", extra: "  deletionPolicy: Orphan\n", code: 0},
		{name: "suspended", extra: "  suspend: true\n", code: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := workloadClusterChart()
			delete(files, "charts/aks-cluster/templates/cluster.yaml")
			files["charts/aks-cluster/templates/sync.yaml"] += tc.extra
			files["clusters/mgmt/clusters.yaml"] = fluxKS("flux-system", "worker-clusters", "./capi/clusters", true)
			files["capi/clusters/north-aks/cluster-helm-release.yaml"] = workloadClusterRelease("north-aks")
			files["capi/clusters/pacific-aks/cluster-helm-release.yaml"] = workloadClusterRelease("pacific-aks")
			r := gittest.New(t, files)
			r.Git("rm", "--quiet", "capi/clusters/north-aks/cluster-helm-release.yaml")
			r.Commit("delete north-aks", nil)
			out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			if tc.code == 2 {
				contains(t, out, "which deletes Kustomization capi-worker-clusters/north-aks-infrastructure, whose deletion prunes what it applied")
			}
		})
	}
}
