package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// workspaceChartRepo keeps a chart in the repository that makes a claim per workspace, and a
// HelmRelease installing it from the repository's own GitRepository by path in a tier that
// builds nothing else, as allenporter/k8s-gitops does
// (https://github.com/allenporter/k8s-gitops, kubernetes/devcontainers/charts/
// devcontainer-workspace and kubernetes/devcontainers/prod/workspaces/ws-platform-release.yaml,
// reconcileStrategy Revision).
func workspaceChartRepo(claim bool) map[string]string {
	files := map[string]string{
		"clusters/prod/devcontainers.yaml":               fluxKS("flux-system", "devcontainers", "./k8s/devcontainers/prod", true),
		"k8s/devcontainers/charts/workspace/Chart.yaml":  "apiVersion: v2\nname: devcontainer-workspace\nversion: 1.0.2\n",
		"k8s/devcontainers/charts/workspace/values.yaml": "workspaceName: example\nstorage:\n  size: 10Gi\n",
		"k8s/devcontainers/charts/workspace/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: ws-{{ .Values.workspaceName }}\n" +
			"spec:\n  ports:\n    - port: 22\n",
		"k8s/devcontainers/prod/ws-platform.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ws-platform\n  namespace: devcontainers\n" +
			"spec:\n  interval: 1m\n  chart:\n    spec:\n      chart: ./k8s/devcontainers/charts/workspace\n      reconcileStrategy: Revision\n" +
			"      sourceRef:\n        kind: GitRepository\n        name: flux-system\n        namespace: flux-system\n  values:\n    workspaceName: platform\n",
	}
	if claim {
		files["k8s/devcontainers/charts/workspace/templates/pvc.yaml"] = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ws-{{ .Values.workspaceName }}-pvc\n" +
			"spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: {{ .Values.storage.size }}\n"
	}
	return files
}

// TestChartDirectoryChanged: the candidate drops the claim's template from a chart the
// repository keeps; no tier's files change, but helm-controller upgrades the release that
// installs the chart from the repository's path, and Helm deletes the claim. The incremental
// gate builds the release's tier and renders it, as --full does (UNSAFE), instead of reusing
// every tier and saying SAFE.
func TestChartDirectoryChanged(t *testing.T) {
	r := gittest.New(t, workspaceChartRepo(true))
	base := r.Git("rev-parse", "HEAD")
	r.Git("rm", "--quiet", "k8s/devcontainers/charts/workspace/templates/pvc.yaml")
	inc, full, incCode, fullCode := gateBoth(t, r.Dir, "clusters/prod", base)
	if incCode != 1 || fullCode != 1 {
		t.Fatalf("exit %d incremental, %d --full, want 1 (UNSAFE) at both\n%s\n---\n%s", incCode, fullCode, inc, full)
	}
	outputHas(t, inc, "PersistentVolumeClaim devcontainers/ws-platform-pvc")
	if a, b := verdictLines(inc), verdictLines(full); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("incremental and --full judge differently\n%s\n---\n%s", inc, full)
	}
}
