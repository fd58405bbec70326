package saferetire_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// podAge matches the age detail of a pod in a json report.
var podAge = regexp.MustCompile(`"age [^"]*"`)

// TestLiveBuildCache runs the seed incident's live gate (the cluster's Kustomizations, built
// at both revisions, the pod that mounts the claim read from the apiserver) twice with one
// build cache: the second run reads its tiers from it and gives the report and exit code of a
// run without a cache.
func TestLiveBuildCache(t *testing.T) {
	needEnv(t)
	r := incidentRepo(t)
	r.Commit("second", nil)
	removeClaim(r)
	dir := t.TempDir()
	report := func(extra ...string) (map[string]any, int) {
		t.Helper()
		out, errOut, code := run(t, append([]string{"--dry-run", "--repo", r.Dir, "-n", incident.FluxNS, "-o", "json"}, extra...)...)
		// A pod's age is read at each run, and two runs may fall on either side of a second.
		out = podAge.ReplaceAllString(out, `"age"`)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		// Each run stamps its own report.
		delete(res, "timestamp")
		return res, code
	}
	plain, want := report("--build-cache", "")
	if want != 1 || plain["buildCache"] != nil {
		t.Fatalf("without a cache: exit %d (want 1), buildCache %v", want, plain["buildCache"])
	}
	for i := range 2 {
		got, code := report("--build-cache", dir)
		use, _ := got["buildCache"].(map[string]any)
		if use == nil {
			t.Fatalf("run %d: the cache is not reported", i+1)
		}
		if from := use["fromCache"].(float64); (i == 0) != (from == 0) {
			t.Errorf("run %d read %v tier builds from the cache", i+1, from)
		}
		delete(got, "buildCache")
		if d := cmp.Diff(plain, got); d != "" || code != want {
			t.Errorf("run %d with the cache: exit %d, report differs (-plain +cached):\n%s", i+1, code, d)
		}
	}
}

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
		// A pod's age is read at each run, and two runs may fall on either side of a second.
		out = podAge.ReplaceAllString(out, `"age"`)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, errOut)
		}
		// Each run stamps its own report.
		delete(res, "timestamp")
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
