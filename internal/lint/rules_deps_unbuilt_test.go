package lint_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
)

// A dependsOn whose Kustomization no tier that built declares is an error only when every tier
// built: here the tier that declares it (apps-wave-1 applies wave-1-child) does not build, so
// the dependency is unknown, named as such, and no error says it "does not exist".
func TestMissingDependencyInUnbuiltTier(t *testing.T) {
	p := newPlatform()
	p.replace(t, "clusters/prod/tiers.yaml", "  wait: false\n  dependsOn:\n    - name: platform-config\n", "  wait: false\n  dependsOn:\n    - name: wave-1-child\n")
	p["apps/wave-1/kustomization.yaml"] = kustomization("child.yaml", "missing.yaml")
	var dep *lint.Finding
	r := load(t, p)
	// The chain drawn for the repository says the same: unknown, not absent (tvories/k8s-gitops,
	// whose cluster-crds tier does not build offline and declares the dependency).
	for _, f := range r.Chain.Findings {
		if f.Kind == flux.FindingMissingDependency && (strings.Contains(f.Message, "does not exist") || !strings.Contains(f.Message, "unknown, not absent")) {
			t.Errorf("the chain's finding says it as a fact: %+v", f)
		}
	}
	for _, f := range lint.Run(r) {
		if f.Rule == "dependency-graph" {
			dep = &f
		}
	}
	if dep == nil || dep.Severity != lint.Info || strings.Contains(dep.Message, "does not exist") ||
		!strings.Contains(dep.Message, "unknown, not absent") || !strings.Contains(dep.Message, "flux-system/apps-wave-1") {
		t.Fatalf("got %+v", dep)
	}
	// Once that tier builds, the dependency exists and nothing is reported.
	p["apps/wave-1/kustomization.yaml"] = kustomization("child.yaml")
	for _, f := range lint.Run(load(t, p)) {
		if f.Rule == "dependency-graph" {
			t.Fatalf("dependency declared by a tier that built: %+v", f)
		}
	}
}

// A dependsOn on flux-system/flux-system, when no Kustomization the repository declares builds
// the entry path, may name the root made outside it (flux bootstrap and the Flux Operator name
// it after its namespace): information, not "does not exist". Modelled on sulibot/home-ops's
// clusters/production, whose kustomization.yaml leaves out its flux-system/ directory. Another
// name is still an error, and so is flux-system once the repository declares its own root.
func TestDependencyOnOutsideRoot(t *testing.T) {
	for _, c := range []struct {
		name, dep string
		outside   bool
		want      lint.Severity
	}{
		{"root made outside", "flux-system", true, lint.Info},
		{"another name", "flux-systm", true, lint.Error},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPlatform()
			p.replace(t, "clusters/prod/tiers.yaml", "  wait: false\n  dependsOn:\n    - name: platform-config\n", "  wait: false\n  dependsOn:\n    - name: "+c.dep+"\n")
			if c.outside {
				p["clusters/prod/kustomization.yaml"] = kustomization("tiers.yaml")
			}
			var dep *lint.Finding
			for _, f := range lint.Run(load(t, p)) {
				if f.Rule == "dependency-graph" {
					dep = &f
				}
			}
			if dep == nil || dep.Severity != c.want {
				t.Fatalf("got %+v, want a dependency-graph finding of severity %s", dep, c.want)
			}
			if c.want == lint.Info && !strings.Contains(dep.Message, "made outside the repository") {
				t.Errorf("the reason is not said: %s", dep.Message)
			}
		})
	}
	p := newPlatform()
	p.replace(t, "clusters/prod/tiers.yaml", "  wait: false\n  dependsOn:\n    - name: platform-config\n", "  wait: false\n  dependsOn:\n    - name: flux-system\n")
	for _, f := range lint.Run(load(t, p)) {
		if f.Rule == "dependency-graph" {
			t.Fatalf("the root the repository declares exists: %+v", f)
		}
	}
}
