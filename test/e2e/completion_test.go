package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionThroughKubectl installs why-terminating and flux-chain with krew, links their
// completion helpers into KREW_ROOT/bin as docs/install.md says, and asks the real kubectl
// to complete their arguments against the test control plane.
func TestCompletionThroughKubectl(t *testing.T) {
	root := t.TempDir()
	for _, p := range plugins[:2] {
		install(t, root, p)
		helper := filepath.Join(root, "store", p.Name, s.version, p.Completion)
		if err := os.Symlink(helper, filepath.Join(root, "bin", p.Completion)); err != nil {
			t.Fatal(err)
		}
	}
	bin := []string{filepath.Join(root, "bin")}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"resource types", []string{"why-terminating", "persistentvolumec"}, []string{"persistentvolumeclaims"}},
		{"object names", []string{"why-terminating", "-n", "headlamp", "pvc", ""}, []string{"headlamp"}},
		{"TYPE/NAME", []string{"why-terminating", "-n", "headlamp", "pvc/h"}, []string{"pvc/headlamp"}},
		{"output formats", []string{"why-terminating", "-o", ""}, []string{"text", "json", "yaml"}},
		{"namespaces", []string{"why-terminating", "-n", "head"}, []string{"headlamp"}},
		{"contexts", []string{"flux-chain", "--context", ""}, []string{"e2e"}},
		{"Kustomizations in flux-system", []string{"flux-chain", "apps"}, []string{"apps", "apps-wave-1"}},
	}
	kubectl := filepath.Join(s.pathDir, "kubectl")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := run(t, command(root, bin, kubectl, append([]string{"__complete"}, tc.args...)...))
			got := completions(out)
			for _, w := range tc.want {
				if !contains(got, w) {
					t.Fatalf("kubectl __complete %s: %q lacks %q\n%s", strings.Join(tc.args, " "), got, w, out)
				}
			}
			if !strings.Contains(out, "\n:4\n") && !strings.HasSuffix(strings.TrimSpace(out), ":4") {
				t.Errorf("want directive :4 (no file completion):\n%s", out)
			}
		})
	}
}

// completions returns the candidate lines of `__complete` output (without descriptions and
// the trailing directive and debug lines).
func completions(out string) []string {
	var c []string
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, ":") || strings.HasPrefix(line, "Completion ended") {
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		c = append(c, name)
	}
	return c
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
