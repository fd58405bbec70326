package fluxchain_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// TestRepoCycleOutputLinear is issue 25 item 4: one dependsOn cycle through 1,000
// Kustomizations (247 KiB) printed 76 MB of text, 109 MB with annotations and a 38 MB step
// summary, because the cycle was listed again for every member. The cycle is reported once,
// so the output stays within a few times the input; the annotations stay within what GitHub
// shows for a step and the summary within the 1 MiB it keeps.
func TestRepoCycleOutputLinear(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	if err := copyTree(filepath.Join("testdata", "repo", "base"), dir); err != nil {
		t.Fatal(err)
	}
	var tiers strings.Builder
	for i := range n {
		fmt.Fprintf(&tiers, `---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: tier-%04d
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/wave-0
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  dependsOn:
    - name: tier-%04d
`, i, (i+1)%n)
	}
	if err := os.WriteFile(filepath.Join(dir, "clusters", "prod", "tiers.yaml"), []byte(tiers.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir = gittest.In(t, dir, nil).Dir
	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	out, _, code := runRepo(t, "--repo", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1 (the cycle is a finding)", code)
	}
	if limit := 4 * tiers.Len(); len(out) > limit {
		t.Errorf("%d bytes of output for %d bytes of Kustomizations, more than %d", len(out), tiers.Len(), limit)
	}
	if c := strings.Count(out, "dependsOn cycle through"); c != 3 {
		t.Errorf("the cycle is reported %d times, want once each in the chain's findings, the lint findings and the annotations", c)
	}
	annotations := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") {
			annotations++
		}
	}
	if annotations > 3*ghactions.AnnotationsPerLevel {
		t.Errorf("%d annotations, more than GitHub shows", annotations)
	}
	fi, err := os.Stat(summary)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > ghactions.MaxSummary {
		t.Errorf("the step summary holds %d bytes, more than GitHub keeps", fi.Size())
	}
}
