package lint_test

import (
	"strings"
	"testing"

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
	for _, f := range lint.Run(load(t, p)) {
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
