package saferetire_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestRenderCacheGate: a gate whose renders an earlier run made renders nothing and reports
// the same removals, saying so in JSON (renderCache) and text; a change of Capabilities
// (--kube-version) renders again; --full reads no render cache; a render cache directory
// others may write ends the run exit 3 with one line naming it, as the build cache's does.
func TestRenderCacheGate(t *testing.T) {
	charts := chartsDir(t)
	config := "    persistence:\n      config:\n        existingClaim: paperless\n"
	added := "      cache:\n        type: persistentVolumeClaim\n        size: 10Gi\n"
	r := renderRepo(t, offlineURL, "", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", config+added)})
	r.Commit("drop the cache claim", map[string]string{"k8s/apps/paperless.yaml": appTemplateRelease("media", "paperless", config)})
	dir := t.TempDir()
	run := func(extra ...string) (map[string]any, string, string) {
		t.Helper()
		args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--charts", charts, "--render-cache", dir}, extra...)
		out, errOut, code := invocation{}.raw(t, args...)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (UNSAFE: the claim the upgrade deletes)\n%s\n%s", code, out, errOut)
		}
		var res map[string]any
		_ = json.Unmarshal([]byte(out), &res)
		return res, out, errOut
	}
	use := func(res map[string]any) (from, built float64) {
		t.Helper()
		u, _ := res["renderCache"].(map[string]any)
		if u == nil {
			t.Fatalf("no renderCache in the report: %v", res)
		}
		return u["fromCache"].(float64), u["built"].(float64)
	}
	first, _, _ := run("-o", "json")
	if from, built := use(first); from != 0 || built != 2 {
		t.Fatalf("empty cache: %v from it, %v rendered; want 0, 2", from, built)
	}
	second, _, _ := run("-o", "json")
	if from, built := use(second); from != 2 || built != 0 {
		t.Fatalf("the same gate again: %v from it, %v rendered; want 2, 0 (a hit renders nothing)", from, built)
	}
	a, _ := json.Marshal(first["removals"])
	b, _ := json.Marshal(second["removals"])
	if string(a) != string(b) || !strings.Contains(string(b), "paperless-cache") {
		t.Fatalf("removals from cached renders differ:\n%s\n%s", a, b)
	}
	if _, text, _ := run(); !strings.Contains(text, "Render cache "+dir+": 2 HelmRelease render(s) read from it, 0 rendered") {
		t.Errorf("text output does not say what the render cache answered:\n%s", text)
	}
	other, _, _ := run("-o", "json", "--kube-version", "v1.30.0")
	if from, built := use(other); from != 0 || built != 2 {
		t.Fatalf("another Kubernetes version: %v from it, %v rendered; want 0, 2", from, built)
	}
	if full, _, _ := run("-o", "json", "--full"); full["renderCache"] != nil {
		t.Errorf("--full read the render cache: %v", full["renderCache"])
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := invocation{}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--charts", charts, "--render-cache", dir)
	if code != 3 || !strings.Contains(errOut, "untrusted render cache: "+dir) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("a world-writable render cache: exit %d, want 3 with one line naming it:\n%s\n%s", code, out, errOut)
	}
}
