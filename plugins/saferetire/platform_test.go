package saferetire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// The platform repository (incident.PlatformRepoFiles) has every shape of a real GitOps
// repository at once: artifact root k8s/, a root Kustomization only the bootstrap tool
// creates, tier paths and timeouts rendered by an overlay, protection through a component, a
// tier with a remote resource, a tenant's own source, SOPS, substituteFrom across tiers and
// kind-like strings in a HelmRelease.
func TestPlatformRepository(t *testing.T) {
	r := gittest.New(t, incident.PlatformRepoFiles())
	first := r.Git("rev-parse", "HEAD")
	// These cases judge every tier, the monitoring tier that cannot build offline included
	// (--full): golden case platform-retained shows the incremental gate leaving it unchanged.
	gate := func(t *testing.T, extra ...string) (string, string, int) {
		t.Helper()
		args := append([]string{"--dry-run", "--offline", "--full", "--repo", r.Dir, "--path", incident.PlatformEntry}, extra...)
		return invocation{}.raw(t, args...)
	}

	t.Run("unprotected claim removed in a buildable tier beside an unbuildable one", func(t *testing.T) {
		r.Write(incident.PlatformClaimRemoval(false))
		defer r.Git("checkout", "-q", "--", ".")
		out, errOut, code := gate(t, "--base", first, "--context", "prod")
		if code != 1 {
			t.Fatalf("exit %d, want 1 (unsafe)\n%s\n%s", code, out, errOut)
		}
		contains(t, out,
			"Kustomization flux-system/apps",
			"PersistentVolumeClaim headlamp/headlamp ("+incident.PlatformClaimFile+")",
			"UNKNOWN: these tiers did not build",
			"Kustomization flux-system/monitoring (path providers/hetzner/monitoring)",
			"needs "+incident.PlatformRemoteURL,
			"flux-system/tenant-a: its source GitRepository/flux-system/tenant-a is not the repository's (OCIRepository/flux-system/flux-system)",
			"verdict: UNSAFE (exit 1)")
		contains(t, errOut, "# source root: k8s (detected: the entry path clusters/prod resolves only under k8s/); entry: clusters/prod (given with --path)")
		// The SOPS ciphertext and the Secret-sourced variable are never printed.
		for _, leak := range []string{"ENC[", "c2VjcmV0LXZhbHVl", "OIDC_CLIENT_SECRET"} {
			if strings.Contains(out+errOut, leak) {
				t.Errorf("output shows %q", leak)
			}
		}
	})

	t.Run("GitHub Actions", func(t *testing.T) {
		r.Write(incident.PlatformClaimRemoval(false))
		defer r.Git("checkout", "-q", "--", ".")
		summary := filepath.Join(t.TempDir(), "summary.md")
		iv := invocation{env: map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}}
		out, _, code := iv.raw(t, "--dry-run", "--offline", "--full", "--repo", r.Dir, "--path", incident.PlatformEntry, "--base", first)
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		contains(t, out, "::error file="+incident.PlatformClaimFile+",",
			"::warning title=safe-retire%3A UNKNOWN tier flux-system/monitoring::Kustomization flux-system/monitoring (path providers/hetzner/monitoring) did not build at the base")
		md, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		contains(t, string(md), "| ❌ | PersistentVolumeClaim headlamp/headlamp | flux-system/apps | Pruned | "+incident.PlatformClaimFile+" |",
			"vendor "+incident.PlatformRemoteURL, "not covered (another source): flux-system/tenant-a")
	})

	t.Run("json names the same things", func(t *testing.T) {
		r.Write(incident.PlatformClaimRemoval(false))
		defer r.Git("checkout", "-q", "--", ".")
		out, _, code := gate(t, "--base", first, "-o", "json")
		var res struct {
			Layout         struct{ SourceRoot, Entry string }
			Kustomizations []string
			NotCovered     []report.Gap
			Unbuilt        []struct {
				Kustomization, Side, Path string
				RemoteURLs                []string
			}
			Removals []struct {
				Object struct{ Kind, Namespace, Name string }
				Unsafe bool
			}
			Verdict string
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if code != 1 || res.Verdict != "UNSAFE" || res.Layout.SourceRoot != "k8s" || res.Layout.Entry != "clusters/prod" {
			t.Fatalf("exit %d, %+v", code, res)
		}
		// Only real top-level objects are removed: the drift-detection data is no StatefulSet.
		if len(res.Removals) != 1 || res.Removals[0].Object.Kind != "PersistentVolumeClaim" || res.Removals[0].Object.Namespace != "headlamp" || !res.Removals[0].Unsafe {
			t.Errorf("removals %+v, want only the unsafe claim headlamp/headlamp", res.Removals)
		}
		if strings.Join(res.Kustomizations, ",") != "flux-system/apps,flux-system/infra" {
			t.Errorf("compared %v, want apps and infra", res.Kustomizations)
		}
		if len(res.Unbuilt) != 2 || res.Unbuilt[0].Kustomization != "flux-system/monitoring" || len(res.Unbuilt[0].RemoteURLs) != 1 || res.Unbuilt[0].RemoteURLs[0] != incident.PlatformRemoteURL {
			t.Errorf("unbuilt %+v, want monitoring at both sides with its URL", res.Unbuilt)
		}
		if len(res.NotCovered) != 1 || res.NotCovered[0].Subject.Name != "tenant-a" || res.NotCovered[0].Op != report.OpBuild ||
			res.NotCovered[0].Reason != report.GapNotRead || !strings.HasPrefix(res.NotCovered[0].String(), "flux-system/tenant-a: ") {
			t.Errorf("not covered %+v, want the typed gap of tenant-a", res.NotCovered)
		}
	})

	// Two stages: the component protects the claim (merged), then the manifest goes. The claim
	// is retained; the run is UNKNOWN only because monitoring did not build, until its remote
	// resource is vendored.
	t.Run("two-stage removal", func(t *testing.T) {
		protected := r.Commit("protect the claims of apps", incident.PlatformProtect())
		out, errOut, code := gate(t, "--base", first, "--candidate", protected)
		if code != 2 || !strings.Contains(out, "Nothing is removed") {
			t.Fatalf("stage 1: exit %d, want 2 (monitoring unknown)\n%s\n%s", code, out, errOut)
		}
		r.Write(incident.PlatformClaimRemoval(true))
		out, errOut, code = gate(t, "--base", protected)
		if code != 2 {
			t.Fatalf("stage 3: exit %d, want 2\n%s\n%s", code, out, errOut)
		}
		contains(t, out,
			"retained PersistentVolumeClaim headlamp/headlamp ("+incident.PlatformClaimFile+"): kept by kustomize.toolkit.fluxcd.io/prune: disabled",
			"needs "+incident.PlatformRemoteURL,
			"verdict: UNKNOWN (exit 2)")
		if strings.Contains(out, "UNSAFE") {
			t.Errorf("a tier that did not build was called unsafe\n%s", out)
		}

		r.Git("checkout", "-q", "--", ".")
		r.Commit("vendor the monitoring CRDs", incident.PlatformVendorMonitoring())
		vendored := r.Git("rev-parse", "HEAD")
		r.Write(incident.PlatformClaimRemoval(true))
		out, errOut, code = gate(t, "--base", vendored)
		if code != 0 {
			t.Fatalf("vendored: exit %d, want 0\n%s\n%s", code, out, errOut)
		}
		contains(t, out, "retained PersistentVolumeClaim headlamp/headlamp", "verdict: SAFE (exit 0)")
	})

	// An object whose name comes from a Secret (never read) cannot be judged: its tier is
	// incomplete, named with the variable.
	t.Run("name from a Secret", func(t *testing.T) {
		r.Git("checkout", "-q", "--", ".")
		files := incident.PlatformRepoFiles()
		secret := "k8s/clusters/prod/infra/cluster-secrets.sops.yaml"
		r.Write(map[string]string{
			secret:                         strings.Replace(files[secret], "stringData:\n", "stringData:\n  BUCKET_CLAIM: ENC[AES256_GCM,data:YnVja2V0,iv:aXY=,tag:dGFn,type:str]\n", 1),
			"k8s/apps/headlamp/cache.yaml": incident.ClaimManifest("${APP_NAMESPACE}", "${BUCKET_CLAIM}"),
			"k8s/apps/kustomization.yaml":  "resources:\n- headlamp/namespace.yaml\n- headlamp/deployment.yaml\n- headlamp/claim.yaml\n- headlamp/cache.yaml\n",
		})
		defer func() {
			r.Git("checkout", "-q", "--", ".")
			r.Git("clean", "-qfd")
		}()
		out, errOut, code := gate(t, "--base", "HEAD")
		if code != 2 || strings.Contains(out, "UNKNOWN: these tiers did not build") {
			t.Fatalf("exit %d, want 2 for the name alone\n%s\n%s", code, out, errOut)
		}
		contains(t, out, "Kustomization flux-system/apps: candidate build leaves BUCKET_CLAIM unresolved in object names")
	})

	// --allow-network fetches what an offline build refuses (here from a server on 127.0.0.1).
	t.Run("allow network", func(t *testing.T) {
		crd := incident.PlatformVendorMonitoring()["k8s/providers/hetzner/monitoring/servicemonitors.yaml"]
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(crd)) }))
		defer srv.Close()
		url := srv.URL + "/servicemonitors.yaml"
		r.Git("checkout", "-q", "--", ".")
		rev := r.Commit("monitoring from a served URL", map[string]string{
			"k8s/providers/hetzner/monitoring/kustomization.yaml": "resources:\n- " + url + "\n"})
		same := r.Commit("the same tree again", nil)
		out, _, code := gate(t, "--base", rev, "--candidate", same)
		if code != 2 || !strings.Contains(out, "needs "+url) {
			t.Fatalf("offline: exit %d, want 2 naming %s\n%s", code, url, out)
		}
		out, errOut, code := gate(t, "--base", rev, "--candidate", same, "--allow-network")
		if code != 0 || strings.Contains(out, "UNKNOWN") {
			t.Fatalf("--allow-network: exit %d, want 0\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("source root given or refused", func(t *testing.T) {
		same := r.Commit("the first tree again", incident.PlatformRepoFiles())
		r.Git("checkout", "-q", "--", ".")
		_, errOut, code := gate(t, "--base", first, "--candidate", same, "--source-root", "k8s")
		contains(t, errOut, "# source root: k8s (given with --source-root)")
		if code != 2 {
			t.Errorf("exit %d, want 2 (monitoring unknown)", code)
		}
		_, errOut, code = gate(t, "--base", first, "--source-root", "nope")
		if code != 3 || !strings.Contains(errOut, "--source-root nope is not a directory of the repository") {
			t.Errorf("exit %d\n%s", code, errOut)
		}
		_, errOut, code = gate(t, "--base", first, "--source-root", ".")
		if code != 3 || !strings.Contains(errOut, "clusters/prod") {
			t.Errorf("wrong source root: exit %d\n%s", code, errOut)
		}
	})
}

// The platform repository live: the cluster holds the bootstrap-created root Kustomization and
// the rendered tiers, with paths relative to the artifact root; the source root is detected
// from them, the tenant is not covered, monitoring is UNKNOWN, and the claim that the seeded
// pod mounts is unsafe to remove.
func TestPlatformRepositoryLive(t *testing.T) {
	needEnv(t)
	r := gittest.New(t, incident.PlatformRepoFiles())
	r.Commit("second", nil)
	r.Write(incident.PlatformClaimRemoval(false))
	ns := namespace(t, "platform")
	oci := map[string]any{"kind": "OCIRepository", "name": "flux-system"}
	tier := func(path string, extra map[string]any) map[string]any {
		spec := map[string]any{"interval": "10m", "path": path, "prune": true, "sourceRef": oci}
		for k, v := range extra {
			spec[k] = v
		}
		return spec
	}
	// The controller substitutes from the live ConfigMap, which the gate reads too.
	vars := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cluster-vars", Namespace: ns}, Data: map[string]string{"APP_NAMESPACE": "headlamp", "CLUSTER_NAME": "prod"}}
	if _, err := kc.Kube.CoreV1().ConfigMaps(ns).Create(context.Background(), vars, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createKS(t, ns, "flux-system", tier("./clusters/prod", nil))
	createKS(t, ns, "infra", tier("./clusters/prod/infra", nil))
	createKS(t, ns, "apps", tier("./apps", map[string]any{
		"dependsOn": []any{map[string]any{"name": "infra"}},
		"postBuild": map[string]any{"substituteFrom": []any{
			map[string]any{"kind": "ConfigMap", "name": "cluster-vars"},
			map[string]any{"kind": "Secret", "name": "cluster-secrets"}}},
	}), "headlamp_headlamp__PersistentVolumeClaim", "headlamp_headlamp_apps_Deployment", "_headlamp__Namespace")
	createKS(t, ns, "monitoring", tier("./providers/hetzner/monitoring", nil))
	createKS(t, ns, "tenant-a", map[string]any{"interval": "10m", "path": "./deploy", "prune": true,
		"sourceRef": map[string]any{"kind": "GitRepository", "name": "tenant-a"}})

	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "-n", ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out,
		"Kustomization "+ns+"/apps",
		"UNSAFE PersistentVolumeClaim headlamp/headlamp ("+incident.PlatformClaimFile+"): Flux prunes it",
		"mounted by pods/"+seed.Pod,
		"Kustomization "+ns+"/monitoring (path providers/hetzner/monitoring)",
		"needs "+incident.PlatformRemoteURL,
		ns+"/tenant-a: its source GitRepository/"+ns+"/tenant-a is not the repository's (OCIRepository/"+ns+"/flux-system)",
		"verdict: UNSAFE (exit 1)")
	contains(t, errOut, "# source root: k8s (detected: every Kustomization's spec.path resolves only under k8s/)")

	// Most Kustomizations now come from the tenants' repository: the majority would take it for
	// the repository's source, and its paths are not in this one. --path names the root
	// Kustomization, whose source is this repository's.
	for i := range 5 {
		createKS(t, ns, fmt.Sprintf("tenant-%d", i), map[string]any{"interval": "10m", "path": "./deploy", "prune": true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "tenants"}})
	}
	_, errOut, code = run(t, "--dry-run", "--repo", r.Dir, "-n", ns)
	if code != 3 || !strings.Contains(errOut, "no Kustomization's path is in the repository at base or candidate") {
		t.Fatalf("majority source: exit %d, want 3 naming a tenant's missing path\n%s", code, errOut)
	}
	out, errOut, code = run(t, "--dry-run", "--repo", r.Dir, "-n", ns, "--path", incident.PlatformEntry)
	if code != 1 {
		t.Fatalf("--path: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "UNSAFE PersistentVolumeClaim headlamp/headlamp", ns+"/tenant-3: its source GitRepository/"+ns+"/tenants is not the repository's (OCIRepository/"+ns+"/flux-system)")
	contains(t, errOut, "entry: clusters/prod (given with --path: its Kustomization's source is the repository's)")
}

// Live, a Kustomization whose path is in neither revision is UNKNOWN for that tier, named with
// its source and path; the other tiers are still judged.
func TestLiveMissingPath(t *testing.T) {
	needEnv(t)
	ns := namespace(t, "missingpath")
	liveKS(t, ns, "apps", "./k8s/"+ns)
	liveKS(t, ns, "ghost", "./k8s/not-in-this-repo")
	r, base := retainedRepo(t, ns)
	out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 2 || !strings.Contains(out, "Kustomization "+ns+"/ghost (source GitRepository/"+ns+"/flux-system, path k8s/not-in-this-repo): its path is in neither revision") {
		t.Fatalf("exit %d, want 2 naming the Kustomization\n%s\n%s", code, out, errOut)
	}
}

// Live, a child Kustomization that its parent stops declaring but does not prune (spec.prune:
// false) stays on the cluster and reconciles its own path at the new revision: what it prunes
// is judged on that build, here nothing, so its claim is not reported deleted (it was, as if
// the child went with everything it applied). A parent that prunes still deletes it.
func TestLiveKeptChildKustomization(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name       string
		prune      bool
		code       int
		wantOutput string
	}{
		{"parent does not prune", false, 0, "verdict: SAFE"},
		{"parent prunes", true, 1, "UNSAFE PersistentVolumeClaim "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t, "keptchild")
			createKS(t, ns, "parent", map[string]any{"interval": "10m", "path": "./k8s/" + ns + "/parent", "prune": tc.prune,
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}}, ns+"_db_kustomize.toolkit.fluxcd.io_Kustomization")
			liveKS(t, ns, "db", "./k8s/"+ns+"/db", ns+"_data__PersistentVolumeClaim")
			liveClaim(t, ns, "data", nil, false)
			r := gittest.New(t, map[string]string{
				"k8s/" + ns + "/parent/db.yaml":       fluxKS(ns, "db", "./k8s/"+ns+"/db", true),
				"k8s/" + ns + "/parent/settings.yaml": configMap(ns, "settings"),
				"k8s/" + ns + "/db/claim.yaml":        claim(ns, "data"),
			})
			base := r.Git("rev-parse", "HEAD")
			r.Write(map[string]string{"k8s/" + ns + "/parent/db.yaml": ""})
			out, errOut, code := run(t, "--dry-run", "--repo", r.Dir, "--base", base, "-n", ns)
			if code != tc.code || !strings.Contains(out, tc.wantOutput) {
				t.Fatalf("exit %d, want %d and %q\n%s\n%s", code, tc.code, tc.wantOutput, out, errOut)
			}
		})
	}
}
