package saferetire_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/gitops"
)

// TestOfflineBuildCacheTrust is issue 25 item 1 through the command: entries written under
// another secret (a store restored from a job that does not hold this one's) are misses,
// named on stderr, and the report is a run's without a cache; a cache directory others may
// write ends the run exit 3 with one line naming it.
func TestOfflineBuildCacheTrust(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	dir := t.TempDir()
	run := func(secret string, extra ...string) (map[string]any, string, int) {
		t.Helper()
		args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", base, "-o", "json", "--build-cache", dir}, extra...)
		out, errOut, code := invocation{env: map[string]string{gitops.BuildCacheKeyEnv: secret}}.raw(t, args...)
		var res map[string]any
		_ = json.Unmarshal([]byte(out), &res)
		return res, errOut, code
	}
	if _, errOut, code := run("the secret of the base branch's job"); code != 1 {
		t.Fatalf("filling the cache: exit %d\n%s", code, errOut)
	}
	res, errOut, code := run("a fork's job does not know that one")
	if code != 1 {
		t.Fatalf("exit %d with entries under another secret\n%s", code, errOut)
	}
	if use, _ := res["buildCache"].(map[string]any); use == nil || use["fromCache"].(float64) != 0 {
		t.Errorf("entries under another secret were used: %v", res["buildCache"])
	}
	if !strings.Contains(errOut, "failed authentication") || !strings.Contains(errOut, dir) {
		t.Errorf("stderr does not name the entries that failed authentication:\n%s", errOut)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run("the secret of the base branch's job")
	if code != 3 || !strings.Contains(errOut, "untrusted build cache: "+dir) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("a world-writable cache: exit %d, want 3 with one line naming it:\n%s", code, errOut)
	}
}
