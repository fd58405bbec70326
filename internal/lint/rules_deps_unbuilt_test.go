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
