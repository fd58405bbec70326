package saferetire_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// istioRepo is modelled on stefanprodan/gitops-istio (clusters/my-cluster/istio.yaml and
// istio-version.yaml, https://github.com/stefanprodan/gitops-istio, the round-6 row that
// deletes istio-version): the root tier applies the ConfigMap istio-version, and the
// istio-system tier substitutes its HelmRelease's chart version from it. ref is the
// substituteFrom entry's extra lines, cm the ConfigMap's metadata lines.
func istioRepo(ref, cm string) map[string]string {
	return map[string]string{
		"clusters/my-cluster/flux-system/gotk-sync.yaml": fluxKS("flux-system", "flux-system", "./clusters/my-cluster", true),
		"clusters/my-cluster/istio-version.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-version\n  namespace: flux-system\n" + cm + "data:\n  version: 1.13.3\n  claim: istio-data\n",
		"clusters/my-cluster/istio.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: istio-system\n  namespace: flux-system\n" +
			"spec:\n  interval: 10m\n  path: ./istio/system\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n" +
			"  postBuild:\n    substitute:\n      cluster: my-cluster\n    substituteFrom:\n      - kind: ConfigMap\n        name: istio-version\n" + ref,
		"istio/system/namespace.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: istio-system\n",
		"istio/system/istio.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: istio\n  namespace: istio-system\nspec:\n  interval: 1h\n  url: https://istio-release.storage.googleapis.com/charts\n" +
			"---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: istio-base\n  namespace: istio-system\n" +
			"spec:\n  interval: 1h\n  chart:\n    spec:\n      chart: base\n      version: \"${version}\"\n      sourceRef:\n        kind: HelmRepository\n        name: istio\n",
	}
}

// A commit that deletes a ConfigMap a Kustomization's postBuild.substituteFrom reads: the tier
// that applied it prunes it, and kustomize-controller then fails the reader's build ("substitute
// from 'ConfigMap/istio-version' error: configmaps "istio-version" not found"), so it applies
// and prunes nothing: UNKNOWN naming the ConfigMap, the reader and why it is gone. Before, the
// reader was built as if the ConfigMap could still be on the cluster with any variables, and
// the verdict was UNKNOWN because "the candidate changes spec.chart" (to ${version}). Optional,
// the controller substitutes without it: the candidate is judged with its variables unset (a
// claim named ${claim:=istio-fallback} takes its default, so istio-data is pruned: UNSAFE), and
// a note says so. Opted out of pruning, it stays on the cluster: it is not taken as gone.
func TestDeletedSubstitutionSource(t *testing.T) {
	claim := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${claim:=istio-fallback}\n  namespace: istio-system\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n"
	for _, tc := range []struct {
		name, ref, cm string
		claim         bool
		code          int
		want, not     []string
	}{
		{name: "not optional", code: 2, want: []string{
			"Kustomization flux-system/istio-system (path istio/system) at the candidate",
			`substitute from 'ConfigMap/istio-version' error: configmaps "istio-version" not found: the candidate no longer declares it, and Kustomization flux-system/flux-system, which applied it, prunes it`,
		}, not: []string{"changes spec.chart", "changes its spec.chart"}},
		{name: "optional", ref: "        optional: true\n", claim: true, code: 1, want: []string{
			"PersistentVolumeClaim istio-system/istio-data",
			"note: Kustomization flux-system/istio-system: postBuild.substituteFrom reads ConfigMap flux-system/istio-version, optional, which the change deletes (the candidate no longer declares it, and Kustomization flux-system/flux-system, which applied it, prunes it): kustomize-controller substitutes without it, so the variables it defined are unset, and the candidate is judged so",
		}},
		{name: "kept by an opt-out", cm: "  annotations:\n    kustomize.toolkit.fluxcd.io/prune: disabled\n", code: 2, not: []string{"not found", "substitutes without it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := istioRepo(tc.ref, tc.cm)
			if tc.claim {
				files["istio/system/claim.yaml"] = claim
			}
			r := gittest.New(t, files)
			r.Git("rm", "--quiet", "clusters/my-cluster/istio-version.yaml")
			r.Commit("delete the istio-version ConfigMap", nil)
			for _, mode := range [][]string{nil, {"--full"}} {
				args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD"}, mode...)
				out, errOut, code := invocation{}.raw(t, args...)
				if code != tc.code {
					t.Fatalf("%v: exit %d, want %d\n%s\n%s", mode, code, tc.code, out, errOut)
				}
				contains(t, out, tc.want...)
				for _, s := range tc.not {
					if strings.Contains(out, s) {
						t.Errorf("%v: the output says %q\n%s", mode, s, out)
					}
				}
			}
		})
	}
}
