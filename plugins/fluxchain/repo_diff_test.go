package fluxchain_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pull request on the seeded repository that adds one finding (a second committed suspend),
// fixes one (the first suspend) and keeps the rest, one of them moved down a line: --base
// reports exactly that, and --fail-on follows the added finding, or every one with all.
func TestRepoBase(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	dir := copyRepo(t, "seeded")
	tiers := filepath.Join(dir, "clusters/prod/tiers.yaml")
	data, err := os.ReadFile(tiers)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "    - name: apps-wave-1\n  suspend: true\n", "    - name: apps-wave-1\n", 1)
	s = strings.Replace(s, "    - name: apps-wave-0\n", "    - name: apps-wave-0\n  suspend: true\n", 1)
	if s == string(data) {
		t.Fatal("fixture changed: tiers.yaml")
	}
	web := filepath.Join(dir, "apps/wave-0/web.yaml")
	wdata, err := os.ReadFile(web)
	if err != nil {
		t.Fatal(err)
	}
	for p, d := range map[string]string{tiers: s, web: "# moved down a line\n" + string(wdata)} {
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out, _, code := runRepo(t, "--repo", dir, "--base", "HEAD", "-o", "json")
	var res struct {
		Lint []struct{ Rule, Object string }
		Diff struct {
			Added, Fixed []struct{ Rule, Kustomization string }
			Existing     int
			FailOn       string
		}
		ExitCode int
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d := res.Diff
	if len(d.Added) != 1 || d.Added[0].Rule != "suspend-committed" || d.Added[0].Kustomization != "flux-system/apps-wave-1" {
		t.Errorf("added %+v, want the suspend of apps-wave-1", d.Added)
	}
	if len(d.Fixed) != 1 || d.Fixed[0].Rule != "suspend-committed" || d.Fixed[0].Kustomization != "flux-system/apps-wave-2" {
		t.Errorf("fixed %+v, want the suspend of apps-wave-2", d.Fixed)
	}
	if d.Existing != len(res.Lint)-1 || d.Existing < 3 || d.FailOn != "new" {
		t.Errorf("existing %d of %d findings, failOn %q", d.Existing, len(res.Lint), d.FailOn)
	}
	// The added finding is a warning: the default (new, error) passes; new,warning fails.
	if code != 0 {
		t.Errorf("--fail-on new: exit %d, want 0 (the added finding is a warning)", code)
	}
	if _, _, code := runRepo(t, "--repo", dir, "--base", "HEAD", "--fail-on", "new,warning"); code != 1 {
		t.Errorf("--fail-on new,warning: exit %d, want 1", code)
	}
	if _, _, code := runRepo(t, "--repo", dir, "--base", "HEAD", "--fail-on", "all"); code != 1 {
		t.Errorf("--fail-on all: exit %d, want 1 (the base's errors)", code)
	}
	text, _, _ := runRepo(t, "--repo", dir, "--base", "HEAD")
	if !strings.Contains(text, "this pull request adds 1, fixes 1; ") {
		t.Errorf("text without the sentence:\n%s", text)
	}
	if _, stderr, code := runRepo(t, "--repo", dir, "--fail-on", "new"); code != 3 || !strings.Contains(stderr, "new needs --base") {
		t.Errorf("--fail-on new without --base: exit %d: %s", code, stderr)
	}
}
