package saferetire_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// gateBoth runs `safe-retire --dry-run --offline` on dir from base to the working tree, once
// incrementally and once with --full, and returns each run's output and exit code.
func gateBoth(t *testing.T, dir, entry, base string, flags ...string) (inc, full string, incCode, fullCode int) {
	t.Helper()
	run := func(extra ...string) (string, int) {
		var out, errOut bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
		args := append([]string{"--dry-run", "--offline", "--repo", dir, "--path", entry, "--base", base}, flags...)
		args = append(args, extra...)
		code := cli.Run(ctx, cmd, args, &errOut)
		return out.String() + errOut.String(), code
	}
	inc, incCode = run()
	full, fullCode = run("--full")
	return inc, full, incCode, fullCode
}

// verdictLines are the lines of a gate's text that judge something: without the lines that
// say which tiers were reused and how the revisions were built.
func verdictLines(out string) []string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Unchanged by the candidate") || (strings.HasPrefix(l, "# ") && (strings.Contains(l, "--full") || strings.Contains(l, "built"))) {
			continue
		}
		keep = append(keep, l)
	}
	return keep
}

// sharedValuesRepo keeps the values of an app-template HelmRelease in a ConfigMap of another
// tier (spec.valuesFrom), beside an unrelated app's objects, and its HelmRepository in a third,
// as home-ops repositories keep theirs (https://github.com/onedr0p/home-ops,
// kubernetes/flux/meta/repos/): a change to the values is a change to a tier the release's is
// not, and the release's tier declares nothing the walk reads. Releases reading a values ConfigMap kept apart from
// them is a common layout (one per-cluster values object several releases read).
func sharedValuesRepo(persistence string) map[string]string {
	return map[string]string{
		"clusters/prod/apps.yaml": fluxKS("flux-system", "shared", "./k8s/shared", true) + "---\n" +
			fluxKS("flux-system", "apps", "./k8s/apps", true) + "---\n" +
			fluxKS("flux-system", "repos", "./k8s/repos", true),
		"k8s/shared/values.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: paperless-values
  namespace: media
data:
  values.yaml: |
    persistence:
      config:
        existingClaim: paperless
` + persistence,
		"k8s/shared/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n  namespace: default\ndata:\n  a: b\n",
		"k8s/repos/bjw-s.yaml":  helmRepository("bjw-s", offlineURL, ""),
		"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", "") +
			"  valuesFrom:\n    - kind: ConfigMap\n      name: paperless-values\n",
	}
}

// TestValuesInAnotherTier: the candidate drops a claim from the values ConfigMap another tier
// declares; the HelmRelease that reads it is unchanged, but helm-controller upgrades it and
// Helm deletes the claim. The incremental gate renders it as --full does (UNSAFE), instead of
// leaving the release's tier unbuilt and saying SAFE.
func TestValuesInAnotherTier(t *testing.T) {
	charts := chartsDir(t)
	cache := "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n"
	r := gittest.New(t, sharedValuesRepo(cache))
	base := r.Git("rev-parse", "HEAD")
	r.Write(sharedValuesRepo(""))
	inc, full, incCode, fullCode := gateBoth(t, r.Dir, "clusters/prod", base, "--charts", charts)
	if incCode != 1 || fullCode != 1 {
		t.Fatalf("exit %d incremental, %d --full, want 1 (UNSAFE) at both\n%s\n---\n%s", incCode, fullCode, inc, full)
	}
	outputHas(t, inc, "UNSAFE PersistentVolumeClaim media/paperless-cache: Helm deletes it when helm-controller upgrades release media/paperless")
	if a, b := verdictLines(inc), verdictLines(full); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("incremental and --full judge differently\n%s\n---\n%s", inc, full)
	}
}

// clusterSettingsRepo declares a cluster-settings ConfigMap in flux-system that the
// postBuild.substituteFrom of every apps Kustomization reads, as onedr0p/home-ops and the
// repositories made from its template do (kubernetes/flux/vars/cluster-settings.yaml, read by
// the cluster-apps Kustomization and patched into each app's). The ConfigMap's tier is not an
// app's; a claim's name takes a variable from it, so a change to the ConfigMap alone renames
// the claim, and Flux prunes the old one.
func clusterSettingsRepo(cluster string) map[string]string {
	app := func(name string) string {
		return fluxKS("flux-system", name, "./k8s/apps/"+name, true) +
			"  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-settings\n"
	}
	return map[string]string{
		"clusters/prod/flux.yaml": fluxKS("flux-system", "vars", "./k8s/vars", true) + "---\n" +
			app("backup") + "---\n" + app("web"),
		"k8s/vars/cluster-settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n  CLUSTER_NAME: " + cluster + "\n  TIMEZONE: UTC\n",
		"k8s/apps/backup/claim.yaml":     incident.ClaimManifest("backup", "snapshots-${CLUSTER_NAME}"),
		"k8s/apps/web/config.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: web\ndata:\n  TZ: ${TIMEZONE}\n",
	}
}

// TestClusterSettingsInAnotherTier: the incremental gate builds each tier whose substitution
// reads the changed cluster-settings again, and says what --full says: the claim is pruned.
func TestClusterSettingsInAnotherTier(t *testing.T) {
	r := gittest.New(t, clusterSettingsRepo("home"))
	base := r.Git("rev-parse", "HEAD")
	r.Write(clusterSettingsRepo("main"))
	inc, full, incCode, fullCode := gateBoth(t, r.Dir, "clusters/prod", base)
	if incCode != 1 || fullCode != 1 {
		t.Fatalf("exit %d incremental, %d --full, want 1 (UNSAFE) at both\n%s\n---\n%s", incCode, fullCode, inc, full)
	}
	outputHas(t, inc, "PersistentVolumeClaim backup/snapshots-home")
	if a, b := verdictLines(inc), verdictLines(full); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("incremental and --full judge differently\n%s\n---\n%s", inc, full)
	}
}

// TestStrategyOnlyChange: as on fluxcd/d2-fleet 299d2ee, the candidate changes only how
// helm-controller installs and upgrades a release whose chart is not at hand (offline): the
// warning says that is what changed, not that what it renders from did, and says the chart
// is not available once.
func TestStrategyOnlyChange(t *testing.T) {
	release := func(strategy string) map[string]string {
		return map[string]string{
			"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", true),
			"k8s/apps/repos.yaml":     helmRepository("bjw-s", offlineURL, ""),
			"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", "") + strategy,
		}
	}
	r := gittest.New(t, release(""))
	base := r.Git("rev-parse", "HEAD")
	r.Write(release("  install:\n    strategy:\n      name: RetryOnFailure\n  upgrade:\n    strategy:\n      name: RetryOnFailure\n"))
	out, errOut, code := offlineGate(t, r.Dir, "clusters/prod", base)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (SAFE with a warning)\n%s\n%s", code, out, errOut)
	}
	outputHas(t, out, "HelmRelease media/paperless (Kustomization flux-system/apps): the candidate changes its spec.install and spec.upgrade, and it could not be rendered at base and candidate: chart not available")
	if n := strings.Count(out, "chart not available"); n != 1 {
		t.Errorf("the unavailable chart is said %d times\n%s", n, out)
	}
}
