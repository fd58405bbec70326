package saferetire_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// payload is an object name a fork's pull request can write into a manifest (issue 16 items 6
// and 7): a shell command after `;`, a newline followed by a GitHub workflow command, an ANSI
// clear-screen and a bidi override. Nothing on the API server's side checks it offline.
const payload = `data;touch /tmp/x\n::error::pwned\e[2J\u202e`

// TestInjectionOffline runs the offline gate, as CI runs it on a pull request, on a repository
// whose removed claim carries the payload in its name: the text output, the annotations and the
// step summary hold no raw control character, no forged workflow command and no command
// with the name in it, and the name is reported as invalid.
func TestInjectionOffline(t *testing.T) {
	r := incidentRepo(t)
	base := r.Commit("infra", map[string]string{
		"clusters/prod/infra.yaml": fluxKS("flux-system", "infra", "./k8s/infra", true),
		"k8s/infra/claim.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: \"" + payload + "\"\n  namespace: headlamp\n" +
			"spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n",
	})
	r.Write(map[string]string{"k8s/infra/claim.yaml": ""})
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	out, errOut, code := invocation{env: env}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base)
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, `is not a valid PersistentVolumeClaim name`, `data;touch /tmp/x\n::error::pwned\x1b[2J\u202e`)
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"stdout": out, "stderr": errOut, "summary": string(md)} {
		assertInert(t, name, text)
	}
}

// assertInert fails on a raw control character, a line GitHub Actions would read as a workflow
// command other than the plugin's own annotations, or a printed command naming the payload.
func assertInert(t *testing.T, name, text string) {
	t.Helper()
	for _, r := range text {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Errorf("%s: raw control character %U:\n%s", name, r, text)
			break
		}
	}
	for _, l := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeftFunc(l, unicode.IsSpace)
		own := strings.HasPrefix(l, "::error file=") || strings.HasPrefix(l, "::warning title=")
		if (strings.HasPrefix(trimmed, "::") && !own) || strings.Contains(l, "##[") {
			t.Errorf("%s: forged workflow command %q", name, l)
		}
		if strings.Contains(l, "kubectl") && strings.Contains(l, "touch /tmp/x") {
			t.Errorf("%s: a command names the invalid object: %q", name, l)
		}
	}
}
