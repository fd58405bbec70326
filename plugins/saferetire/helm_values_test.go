package saferetire_test

import (
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// bjwsRepository is the HelmRepository home-ops repositories declare for app-template
// (https://github.com/onedr0p/home-ops before its move to OCIRepository).
const bjwsRepository = `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: bjw-s
  namespace: flux-system
spec:
  interval: 1h
  url: https://bjw-s-labs.github.io/helm-charts
`

// valuesChange commits an app-template HelmRelease with the base persistence values, then the
// candidate's, and runs the offline gate on HEAD~1..HEAD as issue 23 reproduces it. With known,
// the repository declares the bjw-s HelmRepository, so the chart is known to be app-template.
func valuesChange(t *testing.T, known bool, base, cand string) (string, string, int) {
	t.Helper()
	files := map[string]string{
		"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", base),
	}
	if known {
		files["k8s/apps/repository.yaml"] = bjwsRepository
	}
	r := gittest.New(t, files)
	r.Commit("change the values", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", cand)})
	return invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
}

// Without the chart, a HelmRelease that stays but whose values stop making a claim the chart
// created is UNSAFE, naming the values path: helm-controller upgrades the release and Helm
// deletes what the new manifest lacks. Before, each case was "Nothing is removed … SAFE".
func TestHelmValuesDropClaim(t *testing.T) {
	cases := []struct {
		name, base, cand string
		known            bool
		want             []string
	}{
		{"item removed", "    persistence:\n      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n", "", false,
			[]string{"UNSAFE HelmRelease media/paperless (k8s/apps/paperless.yaml): helm-controller upgrades its release", "spec.values.persistence.cache"}},
		{"existingClaim of its own name", "    persistence:\n      data:\n        size: 15Gi\n", "    persistence:\n      data:\n        existingClaim: paperless-data\n", true,
			[]string{"spec.values.persistence.data (claim paperless-data)", "kubectl --context=CONTEXT -n media get persistentvolumeclaim paperless-data"}},
		{"no type is a claim", "    persistence:\n      data:\n        size: 15Gi\n", "    persistence:\n      data:\n        type: emptyDir\n", false,
			[]string{"spec.values.persistence.data"}},
		{"disabled", "    persistence:\n      data:\n        size: 15Gi\n", "    persistence:\n      data:\n        enabled: false\n        size: 15Gi\n", false,
			[]string{"spec.values.persistence.data"}},
		{"flat persistence.enabled", "    persistence:\n      enabled: true\n", "    persistence:\n      enabled: false\n", false,
			[]string{"spec.values.persistence.enabled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := valuesChange(t, tc.known, tc.base, tc.cand)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			contains(t, out, append(tc.want, "verdict: UNSAFE (exit 1)")...)
		})
	}
}

// Any other change to a HelmRelease's values whose render is not compared is UNKNOWN, never
// SAFE; for app-template, known by its source and version, values that make no claim, or keep
// every claim, prove the upgrade deletes no chart-made state: SAFE, with that evidence.
func TestHelmValuesChangeEvidence(t *testing.T) {
	cases := []struct {
		name, base, cand string
		known            bool
		code             int
		want             string
	}{
		{"unknown chart", "    replicas: 1\n", "    replicas: 2\n", false, 2, "the candidate changes spec.values, and its chart is not rendered here, so what upgrading release media/paperless deletes is unknown"},
		{"app-template without claims", "    replicas: 1\n", "    replicas: 2\n", true, 0, "app-template 4.4.0 → 4.4.0 makes claims only from persistence.* and volumeClaimTemplates and installs no CRDs, and its values declare no claim"},
		{"app-template keeps its claim", "    persistence:\n      data:\n        size: 15Gi\n", "    persistence:\n      data:\n        size: 20Gi\n", true, 0, "every claim its base values make the chart create is still made at the candidate: spec.values.persistence.data"},
		{"retained claim dropped", "    persistence:\n      data:\n        size: 15Gi\n        retain: true\n", "", true, 0, "spec.values.persistence.data is dropped but kept by helm.sh/resource-policy: keep (retain), so Helm leaves its claim in place"},
		{"rawResources are not seen", "    rawResources: {}\n", "    rawResources: {x: {}}\n", true, 2, "its chart is not rendered here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := valuesChange(t, tc.known, tc.base, tc.cand)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			contains(t, out, tc.want)
		})
	}
}

// Removing an app-template HelmRelease whose values make no claim deletes no chart-made state:
// SAFE, with that evidence (before, UNKNOWN: the chart's objects were not seen).
func TestHelmStatelessRemoval(t *testing.T) {
	r := gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml":  fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/repository.yaml": bjwsRepository,
		"k8s/apps/echo.yaml":       appTemplateRelease("media", "echo", ""),
	})
	r.Commit("remove echo", map[string]string{"k8s/apps/echo.yaml": ""})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "pruned HelmRelease media/echo", "note: HelmRelease media/echo (Kustomization flux-system/apps): deleting it uninstalls release media/echo; app-template 4.4.0", "verdict: SAFE (exit 0)")
}
