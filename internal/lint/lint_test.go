package lint_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
)

func load(t *testing.T, p platform) *lint.Repo {
	t.Helper()
	r, err := lint.Load(context.Background(), p.write(t), lint.Options{Entry: "clusters/prod"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCleanPlatform(t *testing.T) {
	r := load(t, newPlatform())
	if n := len(r.Tiers); n != 14 {
		t.Errorf("%d tiers, want 14: %v", n, r.IDs())
	}
	for _, tr := range r.BuildFailures() {
		t.Errorf("%s did not build: %v", tr.ID(), tr.Err)
	}
	notes := 0
	for _, f := range lint.Run(r) {
		if isNote(f) {
			// cert-manager's chart is not rendered here: its ClusterIssuer is not verifiable.
			if notes++; !strings.Contains(f.Message, "API group cert-manager.io") || !strings.Contains(f.Message, "--crds cert-manager.io") {
				t.Errorf("note: %s", f.Message)
			}
			continue
		}
		t.Errorf("clean platform: %s %s: %s", f.Rule, f.Location(), f.Message)
	}
	if notes != 1 {
		t.Errorf("%d crd-order notes, want the one of cert-manager.io", notes)
	}
	if got := r.Tiers["flux-system/wave-1-child"].AppliedBy; got != "flux-system/apps-wave-1" {
		t.Errorf("wave-1-child applied by %q", got)
	}
}

// seeds are the problems seeded into the platform, one per rule: each mutation must produce its
// rule at the named file and line, and the clean platform must not.
var seeds = []struct {
	rule, file string
	line       int
	mutate     func(testing.TB, platform)
}{
	{"crd-order", "infra/platform-config/issuer.yaml", 2, func(t testing.TB, p platform) {
		// The CRD is applied by a tier platform-config does not depend on.
		p["apps/wave-0/crd.yaml"] = issuerCRD
		p.replace(t, "apps/wave-0/kustomization.yaml", "  - web.yaml", "  - web.yaml\n  - crd.yaml")
	}},
	{"timeout-under-helmrelease", "clusters/prod/tiers.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/tiers.yaml", "timeout: 20m", "timeout: 5m")
	}},
	{"substitution-fails-open", "apps/wave-0/web.yaml", 15, func(t testing.TB, p platform) {
		p.replace(t, "apps/wave-0/web.yaml", "image: nginx", "image: nginx:${NGINX_TAG}")
	}},
	{"sops-without-decryption", "clusters/prod/tiers.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/tiers.yaml", "  decryption:\n    provider: sops\n    secretRef:\n      name: sops-age\n", "")
	}},
	{"suspend-committed", "clusters/prod/tiers.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/tiers.yaml", "    - name: apps-wave-1\n", "    - name: apps-wave-1\n  suspend: true\n")
	}},
	{"source-deadlock", "clusters/prod/flux-system/gotk-sync.yaml", 8, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/flux-system/gotk-sync.yaml", "http://gitea-http.gitea.svc.cluster.local:3000", "https://git.example.com")
	}},
	{"remote-base", "apps/runbooks/kustomization.yaml", 5, func(t testing.TB, p platform) {
		p["apps/runbooks/kustomization.yaml"] += "  - https://raw.githubusercontent.com/example/runbooks/main/cm.yaml\n"
	}},
	{"dependson-parent", "apps/wave-1/child.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "apps/wave-1/child.yaml", "- name: platform-config", "- name: apps-wave-1")
	}},
	{"healthcheck-downstream", "clusters/prod/tiers.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/tiers.yaml", "    - name: platform-config\n", "    - name: platform-config\n  healthChecks:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: web\n      namespace: apps\n")
	}},
	{"drift-detection-cni", "infra/cilium/cilium.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "infra/cilium/cilium.yaml", "mode: warn", "mode: enabled")
	}},
	{"leaf-in-gating-tier", "infra/platform/headlamp.yaml", 3, func(t testing.TB, p platform) {
		p["infra/platform/headlamp.yaml"] = p["apps/headlamp/headlamp.yaml"]
		p.replace(t, "infra/platform/kustomization.yaml", "  - cluster-vars.yaml", "  - cluster-vars.yaml\n  - headlamp.yaml")
		p.replace(t, "apps/headlamp/kustomization.yaml", "headlamp.yaml", "[]")
		p["apps/headlamp/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n"
	}},
	{"dependency-graph", "clusters/prod/tiers.yaml", 0, func(t testing.TB, p platform) {
		p.replace(t, "clusters/prod/tiers.yaml", "    - name: apps-wave-1\n", "    - name: apps-wave-9\n")
	}},
}

func TestRules(t *testing.T) {
	for _, s := range seeds {
		t.Run(s.rule, func(t *testing.T) {
			p := newPlatform()
			s.mutate(t, p)
			fs := lint.Run(load(t, p))
			var hit *lint.Finding
			for i := range fs {
				if fs[i].Rule == s.rule && !isNote(fs[i]) {
					hit = &fs[i]
				} else if isNote(fs[i]) {
					continue
				} else if fs[i].Rule != "suspend-committed" || s.rule == "suspend-committed" {
					t.Errorf("unexpected %s: %s", fs[i].Rule, fs[i].Message)
				}
			}
			if hit == nil {
				t.Fatalf("no %s finding in %v", s.rule, fs)
			}
			if hit.File != s.file || (s.line > 0 && hit.Line != s.line) || hit.Line == 0 {
				t.Errorf("%s at %s, want %s:%d", s.rule, hit.Location(), s.file, s.line)
			}
			if hit.Why == "" || hit.Fix == "" || hit.Severity == "" {
				t.Errorf("finding without why, fix or severity: %+v", hit)
			}
		})
	}
}

// TestSeededPlatform seeds every problem at once: each rule fires, and none is lost to another.
func TestSeededPlatform(t *testing.T) {
	p := newPlatform()
	for _, s := range seeds {
		if s.rule == "leaf-in-gating-tier" || s.rule == "dependency-graph" {
			continue // both rewrite what another seed needs; covered alone above
		}
		s.mutate(t, p)
	}
	got := map[string]bool{}
	for _, f := range lint.Run(load(t, p)) {
		got[f.Rule] = true
	}
	for _, s := range seeds {
		if !got[s.rule] && s.rule != "leaf-in-gating-tier" && s.rule != "dependency-graph" {
			t.Errorf("seeded platform: no %s", s.rule)
		}
	}
	if !strings.Contains(strings.Join(keys(got), ","), "crd-order") {
		t.Error("no crd-order")
	}
}

// isNote is crd-order's note that a CRD is declared nowhere the lint can read.
func isNote(f lint.Finding) bool { return f.Rule == "crd-order" && f.Severity == lint.Info }

// issuerCRD is the CRD of the fixture's ClusterIssuer.
const issuerCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterissuers.cert-manager.io
spec:
  group: cert-manager.io
  names:
    kind: ClusterIssuer
    plural: clusterissuers
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
`

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
