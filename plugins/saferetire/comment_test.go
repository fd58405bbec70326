package saferetire_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/ghapi"
)

const (
	writeToken = "ghs_saferetireWRITE0123456789abcdef"
	readToken  = "ghs_saferetireREAD0123456789abcdefg"
)

// commentEnv is a pull_request run's environment pointing at a GitHub API stand-in: pull
// request #2741 of acme/platform (the seed incident's change), with token.
func commentEnv(t *testing.T, api *ghapi.Server, token string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":2741,"pull_request":{"number":2741,"head":{"sha":"1111111111111111111111111111111111111111"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_TOKEN": token, "GITHUB_API_URL": api.URL, "GITHUB_REPOSITORY": "acme/platform",
		"GITHUB_EVENT_PATH": event, "GITHUB_EVENT_NAME": "pull_request"}
}

func commentStandIn(t *testing.T) *ghapi.Server {
	t.Helper()
	api, err := ghapi.Start(ghapi.Options{Repository: "acme/platform", Tokens: map[string]bool{writeToken: true, readToken: false}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	return api
}

// The seed incident's pull request (#2741 removes the claim's manifest): the first run creates
// one comment with the verdict, the second edits the same comment in place.
func TestGitHubCommentCreatesThenUpdates(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	api := commentStandIn(t)
	iv := invocation{env: commentEnv(t, api, writeToken)}
	for i, want := range []string{"comment created", "comment updated"} {
		out, errOut, code := iv.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "--github-comment")
		if code != 1 {
			t.Fatalf("run %d: exit %d, want 1\n%s\n%s", i, code, out, errOut)
		}
		contains(t, errOut, "# pull request #2741: "+want)
	}
	cs := api.Comments(2741)
	if len(cs) != 1 {
		t.Fatalf("%d comments, want 1", len(cs))
	}
	contains(t, cs[0].Body, "<!-- kubeforensics:safe-retire:clusters/prod -->\n", "## safe-retire: UNSAFE",
		"| ❌ | PersistentVolumeClaim headlamp/headlamp | flux-system/apps | Pruned | "+pvcFile+" |", "1. **protect**",
		"at 1111111111111111111111111111111111111111")
	var patched bool
	for _, req := range api.Requests() {
		patched = patched || req.Method == "PATCH" && strings.HasSuffix(req.Path, "/issues/comments/"+itoa(cs[0].ID))
	}
	if !patched {
		t.Fatalf("the second run did not edit comment %d: %+v", cs[0].ID, api.Requests())
	}
}

// A pull request from a fork: the token is read-only, GitHub answers 403. The run warns, the
// step summary is still written, and the exit code is the verdict's (1), not an error's.
func TestGitHubCommentForkFailsSoft(t *testing.T) {
	r := incidentRepo(t)
	base := r.Git("rev-parse", "HEAD")
	removeClaim(r)
	api := commentStandIn(t)
	env := commentEnv(t, api, readToken)
	out, errOut, code := invocation{env: env}.raw(t, "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "--github-comment")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the verdict)\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "::warning title=safe-retire%3A pull request comment not posted::", "403 Resource not accessible by integration")
	contains(t, errOut, "# warning: no pull request comment for entry path clusters/prod", "read-only GITHUB_TOKEN")
	md, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	contains(t, string(md), "## safe-retire: UNSAFE")
	if len(api.Comments(2741)) != 0 {
		t.Fatal("a comment was posted with a read-only token")
	}
	for _, s := range []string{out, errOut, string(md)} {
		if strings.Contains(s, readToken) {
			t.Fatalf("the token is in the output:\n%s", s)
		}
	}
}

func TestGitHubCommentUsage(t *testing.T) {
	api := commentStandIn(t)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"live", commentEnv(t, api, writeToken), []string{"--dry-run", "--github-comment", "--context", "prod"}, "it needs --offline --dry-run"},
		{"no token", commentEnv(t, api, ""), []string{"--dry-run", "--offline", "--github-comment"}, "needs GITHUB_TOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := invocation{env: tt.env}.raw(t, tt.args...)
			if code != 3 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want 3 with %q\n%s", code, tt.want, errOut)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
