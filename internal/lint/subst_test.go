package lint_test

import (
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/lint"
)

// A reference no variable can fill, `${1}` (a regular expression's group, as graphite
// exporter mappings write them), is undefined like any other: the tier still builds and the
// finding names it. Modelled on H3mul/homelab-k3s-flux's
// cluster/graphite-exporter/configmap-graphite-exporter-config.yaml (`instance: "${1}"`) with
// postBuild.substituteFrom the cluster-settings ConfigMap, at the parent of
// https://github.com/H3mul/homelab-k3s-flux/commit/6d5f5579: the tier was reported not built,
// "'1' var name is invalid", a message of this tool's own making.
func TestSubstitutionOfNoVariableName(t *testing.T) {
	p := newPlatform()
	p.replace(t, "apps/wave-0/web.yaml", "            - name: REGION\n", "            - name: INSTANCE\n              value: \"${1}\"\n            - name: REGION\n")
	r := load(t, p)
	for _, tr := range r.BuildFailures() {
		t.Errorf("%s did not build: %v", tr.ID(), tr.Err)
	}
	var hit *lint.Finding
	fs := lint.Run(r)
	for i := range fs {
		if fs[i].Rule == "substitution-fails-open" {
			hit = &fs[i]
		}
	}
	if hit == nil {
		t.Fatalf("no substitution-fails-open finding in %v", fs)
	}
	if !strings.Contains(hit.Message, "$${1}") {
		t.Errorf("the finding does not say how to keep ${1} as text: %s", hit.Message)
	}
	if hit.File != "apps/wave-0/web.yaml" || hit.Line != 20 {
		t.Errorf("finding at %s, want apps/wave-0/web.yaml:20: %s", hit.Location(), hit.Message)
	}
}
