package fluxchain_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/ghapi"
)

const (
	commentToken  = "ghs_fluxchainWRITE0123456789abcdefg"
	readOnlyToken = "ghs_fluxchainREAD0123456789abcdefgh"
)

// pullRequestEnv sets a pull_request run's environment pointing at a GitHub API stand-in.
func pullRequestEnv(t *testing.T, api *ghapi.Server, token string) string {
	t.Helper()
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request":{"number":12,"head":{"sha":"2222222222222222222222222222222222222222"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(dir, "summary.md")
	for k, v := range map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary, "GITHUB_TOKEN": token,
		"GITHUB_API_URL": api.URL, "GITHUB_REPOSITORY": "acme/fleet", "GITHUB_EVENT_PATH": event} {
		t.Setenv(k, v)
	}
	return summary
}

// The lint of the seeded repository goes into one comment on the pull request: the first run
// creates it, the second edits it; a read-only token (a fork) warns and keeps the verdict's
// exit code and the step summary.
func TestRepoGitHubComment(t *testing.T) {
	dir := copyRepo(t, "seeded")
	api, err := ghapi.Start(ghapi.Options{Repository: "acme/fleet", Tokens: map[string]bool{commentToken: true, readOnlyToken: false}})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	pullRequestEnv(t, api, commentToken)
	for _, want := range []string{"comment created", "comment updated"} {
		out, errOut, code := runRepo(t, "--repo", dir, "--github-comment")
		if code != 1 || !strings.Contains(errOut, "# pull request #12: "+want) {
			t.Fatalf("exit %d, want 1 and %q\n%s\n%s", code, want, out, errOut)
		}
	}
	cs := api.Comments(12)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "<!-- kubeforensics:flux-chain:clusters/prod -->\n") ||
		!strings.Contains(cs[0].Body, "| info | crd-order | infra/platform/issuer.yaml:2 |") {
		t.Fatalf("comments: %+v", cs)
	}
	// With --base, the comment says what the pull request changes and folds the rest away.
	if _, errOut, code := runRepo(t, "--repo", dir, "--github-comment", "--base", "HEAD"); code != 0 {
		t.Fatalf("--base HEAD: exit %d, want 0 (nothing added)\n%s", code, errOut)
	}
	if cs := api.Comments(12); len(cs) != 1 || !strings.Contains(cs[0].Body, "**This pull request adds 0, fixes 0; 8 were already there**") ||
		!strings.Contains(cs[0].Body, "<details><summary>8 finding(s) already there at the base</summary>") {
		t.Fatalf("comments with --base: %+v", cs)
	}

	summary := pullRequestEnv(t, api, readOnlyToken)
	out, errOut, code := runRepo(t, "--repo", dir, "--github-comment")
	if code != 1 || !strings.Contains(out, "::warning title=flux-chain%3A pull request comment not posted::") || strings.Contains(out+errOut, readOnlyToken) {
		t.Fatalf("exit %d, want 1 with a warning and no token\n%s\n%s", code, out, errOut)
	}
	if md, err := os.ReadFile(summary); err != nil || !strings.Contains(string(md), "## flux-chain --repo:") {
		t.Fatalf("summary: %v\n%s", err, md)
	}
	if len(api.Comments(12)) != 1 {
		t.Fatal("the read-only run changed the comments")
	}
}

func TestRepoGitHubCommentUsage(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: https://127.0.0.1:1}\nusers:\n- name: a\n  user: {}\ncontexts:\n- name: a\n  context: {cluster: a, user: a}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--github-comment", "--kubeconfig", kubeconfig},
		{"--github-comment", "--contexts", ".*", "--kubeconfig", kubeconfig},
		{"--github-comment", "--repo", copyRepo(t, "seeded"), "--live", "--kubeconfig", kubeconfig},
	} {
		_, errOut, code := runRepo(t, args...)
		if code != 3 || !strings.Contains(errOut, "needs --repo") {
			t.Errorf("%v: exit %d, want 3\n%s", args, code, errOut)
		}
	}
}
