package saferetire_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOfflineBuildCache runs the seed incident's gate three times with one build cache: the
// first run fills it, the later ones read the tiers from it, and every run says so and gives
// the verdict and report of a run without a cache. --full reads no cache.
func TestOfflineBuildCache(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	dir := t.TempDir()
	run := func(extra ...string) (map[string]any, int) {
		t.Helper()
		args := append([]string{"--dry-run", "--offline", "--repo", r.Dir, "--base", base, "-o", "json"}, extra...)
		out, errOut, code := invocation{}.raw(t, args...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		return res, code
	}
	plain, want := run()
	if want != 1 {
		t.Fatalf("exit %d without a cache, want 1", want)
	}
	if plain["buildCache"] != nil {
		t.Errorf("a run without a cache reports one: %v", plain["buildCache"])
	}
	for i := range 3 {
		got, code := run("--build-cache", dir)
		use, _ := got["buildCache"].(map[string]any)
		if use == nil || use["dir"] != dir {
			t.Fatalf("run %d: the cache is not reported: %v", i+1, got["buildCache"])
		}
		if from := use["fromCache"].(float64); (i == 0) != (from == 0) {
			t.Errorf("run %d read %v tier builds from the cache", i+1, from)
		}
		delete(got, "buildCache")
		if d := cmp.Diff(plain, got); d != "" || code != want {
			t.Errorf("run %d with the cache: exit %d, report differs (-plain +cached):\n%s", i+1, code, d)
		}
	}
	if full, _ := run("--build-cache", dir, "--full"); full["buildCache"] != nil {
		t.Errorf("--full used the cache: %v", full["buildCache"])
	}
}
