package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/hack/release/tools"
	"github.com/kubeforensics/suite/internal/testsupport/ghapi"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

const (
	actionToken = "ghs_e2eWRITEtoken0123456789abcdefghij"
	forkToken   = "ghs_e2eFORKreadonly0123456789abcdefg"
	prNumber    = 2741
)

// The sample workflow of docs/ci.md, run end to end with action.yml on the seed incident's pull
// request (#2741 removes the headlamp claim's manifest while its Deployment still mounts it):
// the plugins are installed from the snapshot release (served by the GitHub API stand-in, which
// also answers the comment calls) after their checksums are checked, and the job produces the
// step summary, the SARIF files for upload and one comment per gate. A second push edits the
// same comments; a fork's read-only token only warns, with the summary written and the exit
// code the verdict's. No token appears in any output.
func TestActionWorkflow(t *testing.T) {
	root, err := tools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wf := sampleWorkflow(t, root)
	api, err := ghapi.Start(ghapi.Options{Repository: "acme/platform", AssetsDir: releaseAssets(t),
		Tokens: map[string]bool{actionToken: true, forkToken: false}})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()

	repo := gittest.New(t, incident.RepoFiles())
	base := repo.Git("rev-parse", "HEAD")
	repo.Git("checkout", "--quiet", "-b", "remove-headlamp-claim")
	head := repo.Commit("headlamp: drop the plugins volume claim", incident.ClaimRemoval())

	// A push from the repository itself, twice: created, then updated in place.
	for _, want := range []string{"comment created", "comment updated"} {
		r := newRunner(t, root, api, repo.Dir, actionToken, event(t, base, head, "acme/platform"))
		checkPush(t, r, r.runJob(wf), want)
	}
	comments := api.Comments(prNumber)
	checkComments(t, comments, head)

	// The same pull request from a fork: read-only token, no SARIF upload, no comment written.
	r := newRunner(t, root, api, repo.Dir, forkToken, event(t, base, head, "someone/platform"))
	checkFork(t, r, r.runJob(wf))
	if got := api.Comments(prNumber); len(got) != 2 || got[0].Body != comments[0].Body || got[1].Body != comments[1].Body {
		t.Errorf("fork: the comments changed")
	}
}

// checkPush checks a job on a pull request from the repository itself: the verdict's exit
// code, the install, the comment (created or updated: want), the summary and the SARIF.
func checkPush(t *testing.T, r *runner, code int, want string) {
	t.Helper()
	log, summary := r.log.String(), r.summary.String()
	if code != 1 {
		t.Fatalf("job exit %d, want 1 (safe-retire refuses the removal)\n%s", code, log)
	}
	for _, w := range []string{"installed kubectl-safe_retire " + s.version, "installed kubectl-flux_chain " + s.version,
		"# pull request #2741: " + want, "safe-retire (detected entry path): exit 1"} {
		if !strings.Contains(log, w) {
			t.Errorf("the log lacks %q\n%s", w, log)
		}
	}
	for _, w := range []string{"## safe-retire: UNSAFE", "| ❌ | PersistentVolumeClaim headlamp/headlamp | flux-system/apps | Pruned | " + incident.ClaimFile + " |", "## flux-chain --repo:"} {
		if !strings.Contains(summary, w) {
			t.Errorf("the step summary lacks %q\n%s", w, summary)
		}
	}
	checkSARIF(t, r.uploads)
	noToken(t, actionToken, log, summary)
}

// checkComments checks the pull request's comments: one per gate, found by its marker.
func checkComments(t *testing.T, comments []ghapi.Comment, head string) {
	t.Helper()
	if len(comments) != 2 {
		t.Fatalf("%d comments on the pull request, want 2 (one per gate):\n%+v", len(comments), comments)
	}
	byMarker := map[string]string{}
	for _, c := range comments {
		marker, _, _ := strings.Cut(c.Body, "\n")
		byMarker[marker] = c.Body
	}
	sr := byMarker["<!-- kubeforensics:safe-retire:clusters/prod -->"]
	if !strings.Contains(sr, "## safe-retire: UNSAFE") || !strings.Contains(sr, "PersistentVolumeClaim headlamp/headlamp") || !strings.Contains(sr, " at "+head) {
		t.Errorf("safe-retire's comment:\n%s", sr)
	}
	if fc := byMarker["<!-- kubeforensics:flux-chain:clusters/prod -->"]; !strings.Contains(fc, "## flux-chain --repo:") {
		t.Errorf("flux-chain's comment:\n%s\nall: %v", fc, byMarker)
	}
}

// checkFork checks a job on a fork's pull request: the verdict's exit code, a warning for the
// comment, the summary written, no SARIF upload, no token in the output.
func checkFork(t *testing.T, r *runner, code int) {
	t.Helper()
	log, summary := r.log.String(), r.summary.String()
	if code != 1 {
		t.Fatalf("fork: job exit %d, want 1 (the verdict's)\n%s", code, log)
	}
	for _, w := range []string{"::warning title=safe-retire%3A pull request comment not posted::", "403 Resource not accessible by integration", "read-only GITHUB_TOKEN"} {
		if !strings.Contains(log, w) {
			t.Errorf("fork: the log lacks %q\n%s", w, log)
		}
	}
	if !strings.Contains(summary, "## safe-retire: UNSAFE") {
		t.Errorf("fork: the step summary lacks the verdict:\n%s", summary)
	}
	if len(r.uploads) != 0 {
		t.Errorf("fork: SARIF uploaded with a read-only token: %v", r.uploads)
	}
	noToken(t, forkToken, log, summary)
}

// newRunner is a runner for one job on the checkout dir with token as github.token.
func newRunner(t *testing.T, root string, api *ghapi.Server, dir, token, eventPath string) *runner {
	t.Helper()
	var ev map[string]any
	raw, err := os.ReadFile(eventPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	return &runner{t: t, actionPath: root, tmp: tmp, cacheStore: filepath.Join(tmp, "actions-cache"),
		env: map[string]string{"GITHUB_ACTIONS": "true", "CI": "true", "GITHUB_API_URL": api.URL, "GITHUB_SERVER_URL": "https://github.com",
			"GITHUB_REPOSITORY": "acme/platform", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": eventPath,
			"GITHUB_WORKSPACE": dir, "GITHUB_ACTION_PATH": root, "GITHUB_RUN_ID": "4242", "RUNNER_OS": osName, "RUNNER_ARCH": arch,
			"RUNNER_TEMP": filepath.Join(tmp, "runner"), "XDG_CACHE_HOME": filepath.Join(tmp, "cache")},
		// The snapshot stands in for the release the workflow names; the stand-in serves it.
		github: map[string]any{"token": token, "action_ref": s.version, "event_name": "pull_request", "repository": "acme/platform", "event": ev},
		inputs: map[string]string{"release-url": api.URL + "/releases/download"},
	}
}

// event writes a pull_request event payload for the pull request from headRepo.
func event(t *testing.T, base, head, headRepo string) string {
	t.Helper()
	ev := map[string]any{"action": "synchronize", "number": prNumber,
		"pull_request": map[string]any{"number": prNumber,
			"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": "acme/platform"}},
			"head": map[string]any{"sha": head, "ref": "remove-headlamp-claim", "repo": map[string]any{"full_name": headRepo}}},
		"repository": map[string]any{"full_name": "acme/platform"}}
	raw, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// releaseAssets is a directory where <version>/ is the snapshot's dist, as a release's
// download URLs are laid out.
func releaseAssets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(s.dist, filepath.Join(dir, s.version)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkSARIF checks that one directory was handed to upload-sarif and that it holds a SARIF
// 2.1.0 file per gate, safe-retire's with a result on the removed claim's manifest.
func checkSARIF(t *testing.T, uploads []string) {
	t.Helper()
	if len(uploads) != 1 {
		t.Fatalf("upload-sarif got %v, want one directory", uploads)
	}
	for _, name := range []string{"safe-retire-detected.sarif", "flux-chain-detected.sarif"} {
		raw, err := os.ReadFile(filepath.Join(uploads[0], name))
		if err != nil {
			t.Errorf("SARIF: %v", err)
			continue
		}
		var doc struct {
			Version string `json:"version"`
			Runs    []struct {
				Results []struct {
					RuleID    string `json:"ruleId"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) == 0 {
			t.Errorf("%s is not SARIF 2.1.0 (%v):\n%.2000s", name, err, raw)
			continue
		}
		if name != "safe-retire-detected.sarif" {
			continue
		}
		found := false
		for _, res := range doc.Runs[0].Results {
			for _, l := range res.Locations {
				found = found || l.PhysicalLocation.ArtifactLocation.URI == incident.ClaimFile
			}
		}
		if !found {
			t.Errorf("%s has no result at %s:\n%.4000s", name, incident.ClaimFile, raw)
		}
	}
}

func noToken(t *testing.T, token string, outs ...string) {
	t.Helper()
	for _, o := range outs {
		if strings.Contains(o, token) {
			t.Fatalf("the token is in the output:\n%s", o)
		}
	}
}

// The install step refuses an archive whose SHA-256 is not the one checksums.txt gives, and
// installs nothing from it.
func TestActionInstallChecksMismatch(t *testing.T) {
	root, err := tools.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	assets := t.TempDir()
	rel := filepath.Join(assets, s.version)
	if err := os.Mkdir(rel, 0o755); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(s.dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	archive := "flux-safe-retire_" + strings.TrimPrefix(s.version, "v") + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(l, "  ")
		if name == archive {
			sum = strings.Repeat("0", len(sum)) // what a swapped download would be checked against
		}
		lines = append(lines, sum+"  "+name)
		if err := os.Symlink(filepath.Join(s.dist, name), filepath.Join(rel, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(rel, "checksums.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api, err := ghapi.Start(ghapi.Options{Repository: "acme/platform", AssetsDir: assets})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	tmp := t.TempDir()
	cmd := command("", nil, "bash", filepath.Join(root, "action", "install.sh"))
	cmd.Env = append(slicesFilter(cmd.Env), "PATH="+os.Getenv("PATH"), "KF_VERSION="+s.version, "KF_PLUGINS=safe-retire",
		"KF_RELEASE_URL="+api.URL+"/releases/download", "RUNNER_TEMP="+tmp, "GITHUB_PATH="+filepath.Join(tmp, "path"))
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(string(out), archive+": sha256 ") || !strings.Contains(string(out), "not installed") {
		t.Fatalf("install: exit %d (%v), want 3 naming the mismatch\n%s", code, err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "kubeforensics", "bin", "flux-safe-retire")); !os.IsNotExist(err) {
		t.Fatalf("the refused binary was installed (%v)", err)
	}
}
