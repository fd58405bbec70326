package saferetire_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/charttest"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// helmRepository is a Flux HelmRepository as home-ops repositories declare bjw-s' charts
// (https://github.com/onedr0p/home-ops, kubernetes/flux/meta/repos/): an HTTP index, or with
// type oci a registry.
func helmRepository(name, url, typ string) string {
	s := fmt.Sprintf("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: %s\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: %s\n", name, url)
	if typ != "" {
		s += "  type: " + typ + "\n  insecure: true\n"
	}
	return s
}

// chartsDir is `helm pull` output for the fixture charts.
func chartsDir(t *testing.T) string {
	dir := t.TempDir()
	charttest.Package(t, dir, charttest.AppTemplate("4.4.0"))
	charttest.Package(t, dir, charttest.StatefulDB("16.0.0"))
	charttest.Package(t, dir, charttest.Widgets("1.0.0"))
	return dir
}

// renderRepo declares the bjw-s HelmRepository at url and the HelmReleases given, committed.
func renderRepo(t *testing.T, url, typ string, files map[string]string) *gittest.Repo {
	all := map[string]string{
		"clusters/prod/apps.yaml": fluxKS("flux-system", "apps", "./k8s/apps", true),
		"k8s/apps/repos.yaml":     helmRepository("bjw-s", url, typ),
	}
	for k, v := range files {
		all[k] = v
	}
	return gittest.New(t, all)
}

const offlineURL = "https://bjw-s-labs.github.io/helm-charts"

// The reproduction of issue 23: an app-template HelmRelease gains a claim item, then loses it;
// the HelmRelease stays, so Flux prunes nothing, but helm-controller upgrades the release and
// Helm deletes the claim its new manifest no longer has. Rendered with the chart, that is
// UNSAFE, naming the claim; the same for an item switched to existingClaim (the chart stops
// rendering the claim) and for an item without type (the default type is a claim).
func TestHelmUpgradeDropsClaim(t *testing.T) {
	charts := chartsDir(t)
	for _, tc := range []struct{ name, added, after string }{
		{"item removed", "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n", ""},
		{"existingClaim", "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n", "      cache:\n        existingClaim: paperless-cache\n"},
		{"default type", "      cache:\n        size: 10Gi\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := "    persistence:\n      config:\n        existingClaim: paperless\n"
			r := renderRepo(t, offlineURL, "", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", config)})
			r.Commit("add a cache claim", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", config+tc.added)})
			r.Commit("drop it", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", config+tc.after)})
			args := []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD"}
			out, errOut, code := invocation{}.raw(t, append(args, "--charts", charts)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
			}
			contains(t, out,
				"UNSAFE PersistentVolumeClaim media/paperless-cache: Helm deletes it when helm-controller upgrades release media/paperless (HelmRelease media/paperless, app-template 4.4.0 to app-template 4.4.0)",
				"Helm deletes PersistentVolumeClaim media/paperless-cache, which the new manifest no longer has; it holds persistent state",
				"make the chart put the annotation helm.sh/resource-policy: keep on PersistentVolumeClaim media/paperless-cache",
				"verdict: UNSAFE (exit 1)")
			if strings.Contains(out, "PersistentVolumeClaim media/paperless:") || strings.Contains(out, "Deployment") {
				t.Errorf("objects both manifests have are listed:\n%s", out)
			}
			// Without the chart nothing is rendered: the run says which chart and flag it lacked.
			out, _, _ = invocation{}.raw(t, args...)
			contains(t, out, "chart app-template 4.4.0 from HelmRepository/flux-system/bjw-s <"+offlineURL+">", "--charts DIR")
		})
	}
}

// A removed HelmRelease uninstalls exactly its rendered objects: the chart's claim is deleted
// (UNSAFE); a release whose render holds no persistent state is SAFE with that evidence, where
// without rendering it was UNKNOWN; a claim with helm.sh/resource-policy: keep is left.
func TestHelmRemovalRendered(t *testing.T) {
	charts := chartsDir(t)
	files := map[string]string{
		"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        size: 15Gi\n      export:\n        retain: true\n"),
		"k8s/apps/plex.yaml":      appTemplateRelease("media", "plex", "    persistence:\n      media:\n        existingClaim: media\n"),
	}
	r := renderRepo(t, offlineURL, "", files)
	r.Commit("retire paperless", map[string]string{"k8s/apps/paperless.yaml": ""})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--charts", charts)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"UNSAFE HelmRelease media/paperless (k8s/apps/paperless.yaml)",
		"rendered: chart app-template 4.4.0 at base",
		"deletes PersistentVolumeClaim media/paperless-data",
		"leaves PersistentVolumeClaim media/paperless-export: kept by helm.sh/resource-policy: keep",
		"and the release's other objects: 1 Deployment.apps")

	r = renderRepo(t, offlineURL, "", files)
	r.Commit("retire plex", map[string]string{"k8s/apps/plex.yaml": ""})
	args := []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD"}
	out, errOut, code = invocation{}.raw(t, append(args, "--charts", charts)...)
	if code != 0 {
		t.Fatalf("plex: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "rendered: chart app-template 4.4.0 at base", "and the release's other objects: 1 Deployment.apps")
	// Without the chart, app-template's values rules (issue #23 item 4) still prove the
	// release stateless, and the output says the render was not had.
	out, _, code = invocation{}.raw(t, args...)
	if code != 0 {
		t.Fatalf("plex without the chart: exit %d, want 0 (app-template evidence)\n%s", code, out)
	}
	contains(t, out, "no state: app-template 4.4.0 makes claims only from persistence.*",
		"not seen: the chart's objects: chart not available: chart app-template 4.4.0 from HelmRepository/flux-system/bjw-s")
}

// A StatefulSet chart's uninstall deletes the StatefulSet and leaves its template claims
// orphaned (whenDeleted Retain, the default); a CRD chart's uninstall deletes its templated CRD
// and leaves the crds/ one, which Helm never deletes.
func TestHelmRemovalStatefulAndCRDs(t *testing.T) {
	charts := chartsDir(t)
	release := func(ns, name, chart, version string) string {
		return fmt.Sprintf("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: %s\n      version: %s\n      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}\n", name, ns, chart, version)
	}
	r := renderRepo(t, offlineURL, "", map[string]string{
		"k8s/apps/db.yaml":      release("db", "postgres", "statefuldb", "16.0.0"),
		"k8s/apps/widgets.yaml": release("operators", "widgets", "widgets", "1.0.0"),
	})
	r.Commit("retire both", map[string]string{"k8s/apps/db.yaml": "", "k8s/apps/widgets.yaml": ""})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--charts", charts)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"deletes StatefulSet db/postgres (volumeClaimTemplates, whenDeleted: Retain)",
		"leaves PersistentVolumeClaim db/data-postgres-0: a volumeClaimTemplates claim of StatefulSet db/postgres (whenDeleted: Retain), not in the release's manifest: left orphaned",
		"deletes CustomResourceDefinition widgets.example.com",
		"leaves CustomResourceDefinition gizmos.example.com: in the chart's crds/, which Helm installs and never deletes")
}

// Charts from the network: an HTTP repository and an OCI registry on 127.0.0.1, read only with
// --allow-network; the chart cache then answers an offline run without a request.
func TestHelmChartsFromNetwork(t *testing.T) {
	repo := charttest.NewRepo(t, charttest.AppTemplate("4.4.0"))
	reg := charttest.NewRegistry(t)
	reg.Push(t, "bjw-s-labs/helm", charttest.AppTemplate("4.4.0"))
	for _, tc := range []struct {
		name, url, typ string
		requests       func() int
	}{
		{"http", repo.URL, "", repo.Requests},
		{"oci", "oci://" + reg.Host + "/bjw-s-labs/helm", "oci", reg.Requests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(t.TempDir(), "charts")
			r := renderRepo(t, tc.url, tc.typ, map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", "    persistence:\n      data:\n        size: 15Gi\n")})
			r.Commit("retire paperless", map[string]string{"k8s/apps/paperless.yaml": ""})
			args := []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--chart-cache", cache}
			before := tc.requests()
			out, errOut, code := invocation{}.raw(t, args...)
			if code != 1 || tc.requests() != before || strings.Contains(out, "deletes PersistentVolumeClaim") {
				t.Fatalf("offline, empty cache: exit %d, %d requests\n%s\n%s", code, tc.requests()-before, out, errOut)
			}
			out, errOut, code = invocation{}.raw(t, append(args, "--allow-network")...)
			if code != 1 || tc.requests() == before {
				t.Fatalf("--allow-network: exit %d, %d requests\n%s\n%s", code, tc.requests()-before, out, errOut)
			}
			contains(t, out, "deletes PersistentVolumeClaim media/paperless-data")
			before = tc.requests()
			out, errOut, code = invocation{}.raw(t, args...)
			if code != 1 || tc.requests() != before {
				t.Fatalf("offline from the cache: exit %d, %d requests\n%s\n%s", code, tc.requests()-before, out, errOut)
			}
			contains(t, out, "deletes PersistentVolumeClaim media/paperless-data")
		})
	}
}

// A chart kept in the repository itself (spec.chart.spec.sourceRef the repository's own
// GitRepository, chart a path in it, as flux2-kustomize-helm-example-style monorepos do) is read
// from each revision's snapshot, without --charts or the network.
func TestHelmChartFromRepository(t *testing.T) {
	chart := charttest.AppTemplate("4.4.0")
	files := map[string]string{
		"clusters/prod/apps.yaml":        fluxKS("flux-system", "apps", "./k8s/apps", true),
		"charts/app-template/Chart.yaml": "apiVersion: v2\nname: app-template\nversion: 4.4.0\n",
		"k8s/apps/paperless.yaml":        "",
	}
	for name, content := range chart.Files {
		files["charts/app-template/"+name] = content
	}
	release := func(persistence string) string {
		hr := appTemplateRelease("media", "paperless", persistence)
		return strings.Replace(hr, "      version: 4.4.0\n      sourceRef: {kind: HelmRepository, name: bjw-s, namespace: flux-system}", "      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", 1)
	}
	files["k8s/apps/paperless.yaml"] = strings.Replace(release("    persistence:\n      data:\n        size: 5Gi\n"), "chart: app-template", "chart: ./charts/app-template", 1)
	r := gittest.New(t, files)
	r.Commit("drop the claim", map[string]string{"k8s/apps/paperless.yaml": strings.Replace(release("    persistence:\n      tmp:\n        type: emptyDir\n"), "chart: app-template", "chart: ./charts/app-template", 1)})
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE PersistentVolumeClaim media/paperless-data: Helm deletes it when helm-controller upgrades release media/paperless (HelmRelease media/paperless, app-template 4.4.0 to app-template 4.4.0)")

	// The HelmRelease unchanged, the chart's templates changed: the claim goes all the same. No
	// kustomize build reads the chart, so the incremental gate leaves the tier unbuilt; --full
	// builds it, and the chart's digest tells the revisions apart.
	r = gittest.New(t, files)
	r.Commit("the chart stops making claims", map[string]string{"charts/app-template/templates/pvc.yaml": ""})
	out, errOut, code = invocation{}.raw(t, "--dry-run", "--offline", "--full", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD")
	if code != 1 {
		t.Fatalf("chart change: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE PersistentVolumeClaim media/paperless-data")
}
