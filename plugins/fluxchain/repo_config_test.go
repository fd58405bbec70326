package fluxchain_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/plugins/fluxchain"
)

// writeFile adds or replaces one file of a copied fixture repository.
func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const homeEntry = "kubernetes/flux/cluster"

// TestRepoHomeOps runs --repo on the home-ops overlay, modelled on onedr0p/home-ops
// (https://github.com/onedr0p/home-ops): external-secrets' CRDs come from a bootstrap step
// before Flux. Told so, every rule stays silent; not told, crd-order warns (a retry converges,
// so not an error), names the dependsOn to add, and reports the shared alerts component once.
func TestRepoHomeOps(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	config := "apiVersion: fluxchain.kubeforensics.dev/v1alpha1\nkind: Config\n"
	tests := []struct {
		name   string
		files  map[string]string
		args   []string
		want   int
		stderr string
		check  func(t *testing.T, res fluxchain.RepoResult)
	}{
		// bootstrap/crds lies outside every path Flux builds: the lint reads it as installed
		// before Flux, and the ExternalSecrets are in order.
		{"bootstrap CRDs read", nil, []string{"--fail-on", "info"}, 0, "", silent},
		{"not read then crd-order notes the group below the default fail-on", noBootstrap, nil, 0, "", func(t *testing.T, res fluxchain.RepoResult) {
			if len(res.Lint) != 1 {
				t.Fatalf("%d findings, want 1 (the group's note): %+v", len(res.Lint), res.Lint)
			}
			if f := res.Lint[0]; f.Rule != "crd-order" || f.Severity != "info" || !strings.Contains(f.Message, "--crds external-secrets.io") || len(f.Objects) != 4 {
				t.Errorf("want a crd-order note naming the group and its 4 objects, got %s %s %v: %s", f.Severity, f.Rule, f.Objects, f.Message)
			}
		}},
		{"not read and notes fail", noBootstrap, []string{"--fail-on", "info"}, 1, "", nil},
		{"--crds group", noBootstrap, []string{"--crds", "external-secrets.io", "--fail-on", "info"}, 0, "", silent},
		{"--crds group/Kind", noBootstrap, []string{"--crds", "external-secrets.io/ExternalSecret", "--fail-on", "info"}, 0, "", silent},
		{"--crds a file of manifests", noBootstrap, []string{"--crds", "ESCRDS", "--fail-on", "info"}, 0, "", silent},
		{"--crds-from the bootstrap directory", nil, []string{"--crds-from", "BOOTSTRAP", "--fail-on", "info"}, 0, "", silent},
		{"config crds.paths", map[string]string{".flux-chain.yaml": config + "crds:\n  paths: [bootstrap/crds]\n"}, []string{"--fail-on", "info"}, 0, "", func(t *testing.T, res fluxchain.RepoResult) {
			silent(t, res)
			if !strings.HasSuffix(res.Config, ".flux-chain.yaml") || res.DeclaredCRDs != 1 {
				t.Errorf("config %q, declared %d", res.Config, res.DeclaredCRDs)
			}
		}},
		{"config severity", with(noBootstrap, ".flux-chain.yaml", config+"rules:\n  crd-order:\n    severity: error\n"), nil, 1, "", nil},
		{"config suppression", with(noBootstrap, ".flux-chain.yaml", config+"suppressions:\n  - rule: crd-order\n    reason: the operator's chart installs them first\n"), []string{"--fail-on", "info"}, 0, "", func(t *testing.T, res fluxchain.RepoResult) {
			if len(res.Lint) != 0 || len(res.Suppressed) != 1 || res.Suppressed[0].Suppressed.Reason != "the operator's chart installs them first" {
				t.Errorf("lint %d, suppressed %+v", len(res.Lint), res.Suppressed)
			}
		}},
		{"annotation", with(noBootstrap, "kubernetes/apps/default/autobrr/ks.yaml", annotate(t, "autobrr", "suppress.flux-chain.kubeforensics.dev/crd-order: \"autobrr retries until external-secrets is up\"")), []string{"--fail-on", "info"}, 0, "", func(t *testing.T, res fluxchain.RepoResult) {
			if len(res.Suppressed) != 1 || !strings.Contains(res.Suppressed[0].Suppressed.By, "on Kustomization default/autobrr") {
				t.Errorf("suppressed %+v", res.Suppressed)
			}
		}},
		{"annotation without reason", map[string]string{"kubernetes/apps/default/autobrr/ks.yaml": annotate(t, "autobrr", "suppress.flux-chain.kubeforensics.dev/crd-order: \"\"")}, nil, 3, "needs a reason", nil},
		{"annotation with an unknown rule", map[string]string{"kubernetes/apps/default/autobrr/ks.yaml": annotate(t, "autobrr", "suppress.flux-chain.kubeforensics.dev/crd-ordr: typo")}, nil, 3, `unknown rule "crd-ordr"`, nil},
		{"config unknown field", map[string]string{".flux-chain.yaml": config + "crds:\n  group: [x.io]\n"}, nil, 3, `.flux-chain.yaml: unknown field "group"`, nil},
		{"config suppression without reason", map[string]string{".flux-chain.yaml": config + "suppressions:\n  - rule: crd-order\n"}, nil, 3, `suppressions[0].reason`, nil},
		{"config without apiVersion", map[string]string{".flux-chain.yaml": "crds:\n  groups: [x.io]\n"}, nil, 3, "apiVersion", nil},
		{"--crds-from a path without CRDs", nil, []string{"--crds-from", "kubernetes/apps"}, 3, "holds no CustomResourceDefinition", nil},
		{"--severity unknown rule", nil, []string{"--severity", "nope=error"}, 3, "--severity", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyRepo(t, "homeops")
			for rel, content := range tt.files {
				writeFile(t, dir, rel, content)
			}
			args := []string{"--repo", dir, "--path", homeEntry, "-o", "json"}
			for _, a := range tt.args {
				a = strings.ReplaceAll(a, "BOOTSTRAP", filepath.Join(dir, "bootstrap", "crds"))
				if a == "ESCRDS" { // the fixture's bootstrap CRDs, kept outside the repository
					a = filepath.Join(t.TempDir(), "es.yaml")
					writeFile(t, filepath.Dir(a), "es.yaml", readFixture(t, "testdata/repo/overlays/homeops/bootstrap/crds/external-secrets.yaml"))
				}
				if a == "kubernetes/apps" {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			out, errOut, code := runRepo(t, args...)
			if code != tt.want || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q, want it to contain %q\n%s", code, tt.want, errOut, tt.stderr, out)
			}
			if tt.check == nil || code == 3 {
				return
			}
			var res fluxchain.RepoResult
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			tt.check(t, res)
		})
	}
}

// silent asserts that no rule found anything.
func readFixture(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// noBootstrap empties the fixture's bootstrap CRDs, so nothing declares external-secrets.io.
var noBootstrap = map[string]string{"bootstrap/crds/external-secrets.yaml": ""}

// with is files and one more.
func with(files map[string]string, rel, content string) map[string]string {
	out := map[string]string{rel: content}
	for k, v := range files {
		out[k] = v
	}
	return out
}

func silent(t *testing.T, res fluxchain.RepoResult) {
	t.Helper()
	for _, f := range res.Lint {
		t.Errorf("want every rule silent, got %s %s: %s", f.Severity, f.Rule, f.Message)
	}
	if res.Verdict != "CLEAN" || res.ExitCode != 0 {
		t.Errorf("verdict %s exit %d", res.Verdict, res.ExitCode)
	}
}

// annotate is the home-ops app Kustomization name with one annotation.
func annotate(t *testing.T, name, annotation string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "repo", "overlays", "homeops", "kubernetes", "apps", "default", name, "ks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(data), "  name: "+name+"\n", "  name: "+name+"\n  annotations:\n    "+annotation+"\n", 1)
}

// TestRepoNoSilentZero: a repository whose build holds no Flux Kustomization is bad input, and
// tiers built from another source make the verdict UNKNOWN, never "no findings".
func TestRepoNoSilentZero(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := copyRepo(t, "homeops")
	_, errOut, code := runRepo(t, "--repo", dir, "--path", "kubernetes/components/alerts")
	if code != 3 || !strings.Contains(errOut, "holds no Flux Kustomization") {
		t.Errorf("no Kustomization: exit %d, stderr %q; want 3 naming the path", code, errOut)
	}
	dir = copyRepo(t, "clean")
	writeFile(t, dir, "clusters/prod/tenant.yaml", `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tenant
  namespace: flux-system
spec:
  interval: 10m
  path: ./deploy
  prune: true
  sourceRef:
    kind: GitRepository
    name: tenant
`)
	writeFile(t, dir, "clusters/prod/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - flux-system\n  - tiers.yaml\n  - tenant.yaml\n")
	out, _, code := runRepo(t, "--repo", dir)
	if code != 2 || !strings.Contains(out, "verdict: UNKNOWN (exit 2): 1 of 15 tier(s) not covered") {
		t.Errorf("not covered: exit %d, want 2 with the count\n%s", code, out)
	}
}

// TestRepoSuppressedShown: a suppressed finding is listed with its reason in the text output and
// the GitHub step summary, not dropped.
func TestRepoSuppressedShown(t *testing.T) {
	dir := copyRepo(t, "homeops")
	writeFile(t, dir, "kubernetes/apps/default/autobrr/ks.yaml", annotate(t, "autobrr", "suppress.flux-chain.kubeforensics.dev/crd-order: \"retries until external-secrets is up\""))
	writeFile(t, dir, "bootstrap/crds/external-secrets.yaml", "") // nothing declares the group: a note to suppress
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	out, _, code := runRepo(t, "--repo", dir, "--path", homeEntry)
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"text": out, "summary": string(md)} {
		if !strings.Contains(got, "retries until external-secrets is up") || !strings.Contains(strings.ToLower(got), "suppressed") {
			t.Errorf("%s does not show the suppression:\n%s", name, got)
		}
	}
}
