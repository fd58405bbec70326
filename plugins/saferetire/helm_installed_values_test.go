package saferetire_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	chartcommon "helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/helmstorage"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// webChart is a chart without dependencies: a ConfigMap, a claim while persistence.enabled,
// a claim made by a post-install hook (no delete policy) and a pre-delete Job (none either).
// Its default values carry the sentinel, which no output may show.
func webChart(version string) *chart.Chart {
	tpl := func(name, data string) *chartcommon.File {
		return &chartcommon.File{Name: "templates/" + name, Data: []byte(data)}
	}
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "web", Version: version},
		Values:   map[string]any{"persistence": map[string]any{"enabled": true}, "replicas": 1, "token": releaseSentinel},
		Templates: []*chartcommon.File{
			tpl("config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"),
			tpl("claim.yaml", "{{- if .Values.persistence.enabled }}\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {{ .Release.Name }}-data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 15Gi}}\n{{- end }}\n"),
			tpl("hook-claim.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {{ .Release.Name }}-hook-data\n  annotations: {helm.sh/hook: post-install}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n"),
			tpl("cleanup.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-cleanup\n  annotations: {helm.sh/hook: pre-delete}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n"),
		},
	}
}

// installWeb installs chart web at version as Helm does for helm-controller (its install
// action renders the release record: manifest, hooks, chart, config), in client-only mode as
// nothing here runs workloads, and stores it deployed, revision 1, with Helm's own Secrets
// driver; the post-install hook is recorded as having run.
func installWeb(t *testing.T, ns, version string, values map[string]any) {
	t.Helper()
	inst := action.NewInstall(action.NewConfiguration())
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName, inst.Namespace = "web", ns
	values["password"] = releaseSentinel
	r, err := inst.RunWithContext(context.Background(), webChart(version), values)
	if err != nil {
		t.Fatalf("rendering release web: %v", err)
	}
	rel := r.(*rspb.Release)
	rel.Version, rel.Info.Status, rel.Info.Description = 1, common.StatusDeployed, "Helm install succeeded for release "+ns+"/web"
	for _, h := range rel.Hooks {
		if h.Path == "web/templates/hook-claim.yaml" {
			h.LastRun = rspb.HookExecution{Phase: rspb.HookPhaseSucceeded}
		}
	}
	if err := driver.NewSecrets(kc.Kube.CoreV1().Secrets(ns)).Create("sh.helm.release.v1.web.v1", rel); err != nil {
		t.Fatalf("storing release web: %v", err)
	}
}

// webRelease is HelmRelease ns/web installing chart web at version from a chart repository
// that cannot be reached (so the chart is not available), with the values given.
func webRelease(ns, version, values string) string {
	return fmt.Sprintf(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: %s
spec:
  interval: 1h
  chart:
    spec:
      chart: web
      version: %s
      sourceRef: {kind: HelmRepository, name: webcharts, namespace: flux-system}
  values:
%s`, ns, version, values)
}

// webRepo commits the HelmRelease at version with values base, then changes its values to cand
// in the working tree; live, a Kustomization lists it and it is installed.
func webRepo(t *testing.T, ns, version, base, cand string) (*gittest.Repo, []string) {
	t.Helper()
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_web_helm.toolkit.fluxcd.io_HelmRelease", "flux-system_webcharts_source.toolkit.fluxcd.io_HelmRepository")
	liveHelmRelease(t, ns, "web")
	r := gittest.New(t, map[string]string{
		"k8s/" + ns + "/repos.yaml": helmRepository("webcharts", "https://charts.example.invalid", ""),
		"k8s/" + ns + "/web.yaml":   webRelease(ns, version, base),
	})
	head := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"k8s/" + ns + "/web.yaml": webRelease(ns, version, cand)})
	return r, []string{"--dry-run", "--repo", r.Dir, "--base", head, "-n", ns, "--charts", t.TempDir()}
}

const (
	withClaim    = "    persistence: {enabled: true}\n    replicas: 1\n"
	moreReplicas = "    persistence: {enabled: true}\n    replicas: 2\n"
	noClaim      = "    persistence: {enabled: false}\n    replicas: 1\n"
)

// Live, a values-only change of a HelmRelease whose chart cannot be had is rendered against the
// chart its installed release runs, which Helm stored in the release record: values that stop
// making a claim are UNSAFE, naming it; values that keep it are SAFE, with that evidence. The
// stored chart's values and the release's never show.
func TestHelmValuesUpgradeInstalledChart(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name, cand string
		code       int
		want       []string
	}{
		{"drops the claim", noClaim, 1, []string{
			"UNSAFE PersistentVolumeClaim {ns}/web-data: Helm deletes it when helm-controller upgrades release {ns}/web (HelmRelease {ns}/web, installed web 1.2.0, revision 1, Secret {ns}/sh.helm.release.v1.web.v1 to web 1.2.0)",
			"the upgrade deletes 1 of the installed manifest's 2 objects, judged as removals: PersistentVolumeClaim {ns}/web-data",
			"verdict: UNSAFE (exit 1)"}},
		{"keeps the claim", moreReplicas, 0, []string{
			"so they were rendered against the installed chart web 1.2.0 (stored with revision 1, Secret {ns}/sh.helm.release.v1.web.v1; with Kubernetes v",
			"it keeps every one of the installed manifest's 2 objects, so the upgrade deletes none of them",
			"verdict: SAFE (exit 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t, "helmiv")
			installWeb(t, ns, "1.2.0", map[string]any{"persistence": map[string]any{"enabled": true}, "replicas": 1})
			helmClaim(t, ns, "web-data", nil, map[string]string{"meta.helm.sh/release-name": "web", "meta.helm.sh/release-namespace": ns}, "")
			_, args := webRepo(t, ns, "1.2.0", withClaim, tc.cand)
			out, errOut, code := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				contains(t, out, strings.ReplaceAll(w, "{ns}", ns))
			}
			if strings.Contains(out+errOut, releaseSentinel) || strings.Contains(out, "chart not available") {
				t.Errorf("a stored value shows, or the chart's absence still stands for the verdict\n%s\n%s", out, errOut)
			}
		})
	}
}

// The installed chart stands in only for the chart the HelmRelease declares: at another version
// it does not, and the gate says so (UNKNOWN, from the values alone). A record that decompresses
// past the bound is UNKNOWN, never the values rules' or a render's SAFE.
func TestHelmValuesUpgradeInstalledChartRefused(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "helmiv")
	installWeb(t, ns, "1.2.0", map[string]any{"persistence": map[string]any{"enabled": true}, "replicas": 1})
	_, args := webRepo(t, ns, "1.3.0", withClaim, moreReplicas)
	out, errOut, code := run(t, args...)
	if code != 2 {
		t.Fatalf("another version: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "the installed release's chart is not rendered in its place: the installed release runs chart web 1.2.0 and the HelmRelease declares web 1.3.0",
		"verdict: UNKNOWN (exit 2)")

	ns = namespace(t, "helmiv")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(`{"name":"web","manifest":"`)); err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(bytes.Repeat([]byte("a"), helmstorage.MaxReleaseBytes+1)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sh.helm.release.v1.web.v1", Namespace: ns,
		Labels: map[string]string{"owner": "helm", "name": "web", "status": "deployed", "version": "1"}},
		Type: "helm.sh/release.v1", Data: map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))}}
	if _, err := kc.Kube.CoreV1().Secrets(ns).Create(context.Background(), bomb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, args = webRepo(t, ns, "1.2.0", withClaim, moreReplicas)
	out, errOut, code = run(t, args...)
	if code != 2 {
		t.Fatalf("oversized record: exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "reading the installed release to render its chart: reading the deployed revision of Helm release web in storage namespace "+ns+" (Secret "+ns+"/sh.helm.release.v1.web.v1): too-large",
		"verdict: UNKNOWN (exit 2)")
}

// Live, removing a HelmRelease says what its uninstall does with the release's hooks, which its
// manifest leaves out: the pre-delete hook runs, creating its Job, which stays; the claim a
// post-install hook made is not deleted, and is named as left behind.
func TestHelmRemovalHooks(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "helmhk")
	installWeb(t, ns, "1.2.0", map[string]any{"persistence": map[string]any{"enabled": false}, "replicas": 1})
	helmClaim(t, ns, "web-hook-data", nil, nil, "")
	liveKS(t, ns, "apps", "./k8s/"+ns, ns+"_web_helm.toolkit.fluxcd.io_HelmRelease", ns+"_settings__ConfigMap")
	liveHelmRelease(t, ns, "web")
	r, base := removedRelease(t, ns, "web", webRelease(ns, "1.2.0", noClaim))
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"helm: deleting it uninstalls release "+ns+"/web",
		"leaves PersistentVolumeClaim "+ns+"/web-hook-data: made by the post-install hook web/templates/hook-claim.yaml, which the uninstall does not delete, not in the release's manifest: left orphaned",
		"hook web/templates/hook-claim.yaml: created by this post-install hook and not in the release's manifest: the uninstall does not delete it, and it stays, in no release (its delete policy before-hook-creation deletes it only before this hook runs again)",
		"hook web/templates/cleanup.yaml: the uninstall runs this pre-delete hook, creating Job "+ns+"/web-cleanup, which stays after the uninstall (delete policy before-hook-creation)",
		"and the release's other objects: 1 ConfigMap",
		"verdict: SAFE (exit 0)")
	if strings.Contains(out+errOut, releaseSentinel) {
		t.Errorf("a stored value shows\n%s\n%s", out, errOut)
	}
}
