package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// secretValue is written into repositories and the cluster; no answer may contain it.
const secretValue = "hunter2-do-not-print"

// emptyKubeconfig is a kubeconfig without clusters or contexts: the repository tools need none.
func emptyKubeconfig(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// lintRepo is the incident's repository plus a tier that depends on a Kustomization the
// repository never declares (as in fluxcd/flux2-kustomize-helm-example#105, where
// "Dependencies do not meet ready condition" for good), a tier with a remote base, and a
// Secret manifest with a value.
func lintRepo(t *testing.T, root string) *gittest.Repo {
	files := incident.RepoFiles()
	files["clusters/prod/monitoring.yaml"] = strings.Replace(incident.KustomizationManifest(incident.FluxNS, "monitoring", "./k8s/monitoring", true),
		"spec:\n", "spec:\n  dependsOn:\n  - name: prometheus-crds\n", 1)
	files["k8s/monitoring/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- secret.yaml\n"
	files["k8s/monitoring/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: grafana-admin\n  namespace: monitoring\nstringData:\n  password: " + secretValue + "\n"
	files["clusters/prod/vendor.yaml"] = incident.KustomizationManifest(incident.FluxNS, "vendor", "./k8s/vendor", true)
	files["k8s/vendor/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- https://github.com/prometheus-operator/kube-prometheus//manifests?ref=v0.14.0\n"
	return gittest.In(t, root, files)
}

// flux_chain_lint builds a gittest repository offline: the remote base is not fetched (the
// vendor tier is not built), so the dependsOn on a Kustomization no built tier declares is a
// dependency-graph finding with its file that says it may be declared there: UNKNOWN, not an
// error; and the Secret's value is in no answer.
func TestFluxChainLintOffline(t *testing.T) {
	root := t.TempDir()
	r := lintRepo(t, root)
	cfg := config(emptyKubeconfig(t), root)
	cs := connect(t, cfg)
	res := call(t, cs, "flux_chain_lint", map[string]any{"repo": r.Dir, "path": "clusters/prod"})
	var lr fluxchain.RepoResult
	structured(t, res, &lr)
	if lr.Kind != "FluxChainRepoResult" || lr.Verdict != "UNKNOWN" || lr.ExitCode != 2 {
		t.Fatalf("envelope %s verdict %s exit %d", lr.Kind, lr.Verdict, lr.ExitCode)
	}
	found := false
	for _, f := range lr.Lint {
		found = found || (f.Rule == "dependency-graph" && f.File == "clusters/prod/monitoring.yaml" && strings.Contains(f.Message, "prometheus-crds"))
	}
	if !found {
		t.Errorf("no dependency-graph finding on clusters/prod/monitoring.yaml: %+v", lr.Lint)
	}
	if len(lr.BuildFailures) != 1 || !strings.Contains(lr.BuildFailures[0].Kustomization, "vendor") {
		t.Errorf("build failures = %+v, want the vendor tier, not built without the network", lr.BuildFailures)
	}
	if all := text(res); strings.Contains(all, secretValue) {
		t.Errorf("the answer carries the Secret's value:\n%s", all)
	}
	// Relative to the first root, the same repository.
	structured(t, call(t, cs, "flux_chain_lint", map[string]any{"repo": ".", "path": "clusters/prod", "failOn": "error"}), &lr)
	if lr.Repo != r.Dir {
		t.Errorf("repo = %s, want %s", lr.Repo, r.Dir)
	}
	refused(t, call(t, cs, "flux_chain_lint", map[string]any{"repo": r.Dir, "failOn": "fatal"}), "bad input (exit 3): --fail-on")
}

// A repository outside --repo-root, directly or through a symlink, is not read.
func TestRepoOutsideRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	r := gittest.In(t, outside, incident.RepoFiles())
	link := filepath.Join(root, "link")
	if err := os.Symlink(r.Dir, link); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, config(emptyKubeconfig(t), root))
	for _, dir := range []string{r.Dir, link, "../" + filepath.Base(outside), ""} {
		for _, tool := range []string{"flux_chain_lint", "safe_retire_plan"} {
			args := map[string]any{"repo": dir, "offline": true}
			if tool == "flux_chain_lint" {
				delete(args, "offline")
			}
			res := call(t, cs, tool, args)
			if !res.IsError || !strings.Contains(text(res), "bad input (exit 3)") || !(strings.Contains(text(res), "outside the directories") || strings.Contains(text(res), "repo is required") || strings.Contains(text(res), "no such file")) {
				t.Errorf("%s %q: %s", tool, dir, text(res))
			}
		}
	}
}

// safe_retire_plan offline on the incident's change (#2741 deleted the claim's manifest), with a
// Secret removed too: the claim would be pruned while its pod mounts it, so the plan is UNSAFE;
// both removals are named and the Secret's value is in no answer.
func TestSafeRetirePlanOffline(t *testing.T) {
	root := t.TempDir()
	files := incident.RepoFiles()
	files["k8s/apps/kustomization.yaml"] += "- headlamp/secret.yaml\n"
	files["k8s/apps/headlamp/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: headlamp-oidc\n  namespace: headlamp\nstringData:\n  clientSecret: " + secretValue + "\n"
	r := gittest.In(t, root, files)
	base := r.Git("rev-parse", "HEAD")
	r.Write(incident.ClaimRemoval())
	r.Write(map[string]string{"k8s/apps/headlamp/secret.yaml": ""})
	cs := connect(t, config(emptyKubeconfig(t), root))
	res := call(t, cs, "safe_retire_plan", map[string]any{"repo": r.Dir, "base": base, "offline": true})
	var sr saferetire.Result
	structured(t, res, &sr)
	if sr.Kind != "SafeRetireResult" || sr.Mode != "offline" || sr.Verdict != "UNSAFE" || sr.ExitCode != 1 || len(sr.Actions) != 0 {
		t.Fatalf("envelope %s mode %s verdict %s exit %d actions %+v", sr.Kind, sr.Mode, sr.Verdict, sr.ExitCode, sr.Actions)
	}
	b, _ := json.Marshal(sr.Removals)
	if !strings.Contains(string(b), `"name":"headlamp"`) || !strings.Contains(string(b), "PersistentVolumeClaim") || !strings.Contains(string(b), `"name":"headlamp-oidc"`) {
		t.Errorf("removals do not name the claim and the Secret: %s", b)
	}
	if raw, _ := json.Marshal(res.StructuredContent); strings.Contains(text(res)+string(raw), secretValue) {
		t.Error("the answer carries the removed Secret's value")
	}
}

// safe_retire_plan live on the incident's cluster: the claim the change drops is live and
// mounted, so UNSAFE; and the plan is only a plan: the claim and its pod are untouched.
func TestSafeRetirePlanLive(t *testing.T) {
	needEnv(t)
	root := t.TempDir()
	r := gittest.In(t, root, incident.RepoFiles())
	base := r.Git("rev-parse", "HEAD")
	r.Write(incident.ClaimRemoval())
	ctx := context.Background()
	pvcBefore, err := kc.Kube.CoreV1().PersistentVolumeClaims(incident.Namespace).Get(ctx, incident.Claim, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, config(env.Kubeconfig, root))
	res := call(t, cs, "safe_retire_plan", map[string]any{"repo": r.Dir, "base": base, "path": "clusters/prod"})
	var sr saferetire.Result
	structured(t, res, &sr)
	if sr.Mode != "live" || sr.Target == nil || sr.Target.Context != env.Context || sr.Verdict != "UNSAFE" || sr.ExitCode != 1 || len(sr.Actions) != 0 {
		t.Fatalf("mode %s target %+v verdict %s exit %d actions %+v\n%s", sr.Mode, sr.Target, sr.Verdict, sr.ExitCode, sr.Actions, text(res))
	}
	pvcAfter, err := kc.Kube.CoreV1().PersistentVolumeClaims(incident.Namespace).Get(ctx, incident.Claim, metav1.GetOptions{})
	if err != nil || pvcAfter.ResourceVersion != pvcBefore.ResourceVersion {
		t.Errorf("the claim changed: %v", err)
	}
	if _, err := kc.Kube.CoreV1().Pods(incident.Namespace).Get(ctx, seed.Pod, metav1.GetOptions{}); err != nil {
		t.Errorf("the pod: %v", err)
	}
}
