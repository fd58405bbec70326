package ghcomment

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/ghapi"
)

const (
	writeToken = "ghs_writeTOKENwriteTOKEN0123456789"
	readToken  = "ghs_readONLYreadONLY0123456789abcd"
)

// standIn serves repository acme/platform with a write and a read-only token and two comments
// per page, so finding a comment follows GitHub's Link header.
func standIn(t *testing.T) *ghapi.Server {
	t.Helper()
	s, err := ghapi.Start(ghapi.Options{Repository: "acme/platform", PerPage: 2,
		Tokens: map[string]bool{writeToken: true, readToken: false}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func config(t *testing.T, s *ghapi.Server, token string) Config {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return Config{API: u, Token: token, Repository: "acme/platform", Number: 7, HeadSHA: "0123456789abcdef0123456789abcdef01234567"}
}

// First run creates the comment; the second, after other people commented, edits the same one
// in place, found on the third page (comments come two to a page); a person's comment carrying the same marker is left alone.
func TestPublishCreatesThenUpdates(t *testing.T) {
	s := standIn(t)
	c := config(t, s, writeToken)
	s.AddComment(7, ghapi.User{Login: "alice", Type: "User"}, "LGTM")
	s.AddComment(7, ghapi.User{Login: "mallory", Type: "User"}, Marker("safe-retire", "clusters/prod")+"\nSAFE")
	for range 2 {
		s.AddComment(7, ghapi.User{Login: "bob", Type: "User"}, "another push please")
	}
	var errOut bytes.Buffer
	post := Post{Plugin: "safe-retire", Entry: "clusters/prod", Version: "v1.0.0", Markdown: "## safe-retire: UNSAFE\n"}
	if err := Publish(context.Background(), c, post, &errOut, &errOut, true); err != nil {
		t.Fatal(err)
	}
	post.Markdown = "## safe-retire: SAFE\n"
	if err := Publish(context.Background(), c, post, &errOut, &errOut, true); err != nil {
		t.Fatal(err)
	}
	var ours []ghapi.Comment
	for _, cm := range s.Comments(7) {
		if cm.User == ghapi.Bot() {
			ours = append(ours, cm)
		}
	}
	if len(ours) != 1 {
		t.Fatalf("bot comments = %+v, want exactly one", ours)
	}
	if body := ours[0].Body; !strings.HasPrefix(body, "<!-- kubeforensics:safe-retire:clusters/prod -->\n") || !strings.Contains(body, "## safe-retire: SAFE") || strings.Contains(body, "UNSAFE") {
		t.Fatalf("comment body:\n%s", body)
	}
	var methods []string
	for _, r := range s.Requests() {
		methods = append(methods, r.Method+" "+r.Path)
		if r.Token != writeToken {
			t.Errorf("%s %s sent token %q", r.Method, r.Path, r.Token)
		}
	}
	want := []string{
		"GET /repos/acme/platform/issues/7/comments", "GET /repositories/1296269/issues/7/comments", "POST /repos/acme/platform/issues/7/comments",
		"GET /repos/acme/platform/issues/7/comments", "GET /repositories/1296269/issues/7/comments", "GET /repositories/1296269/issues/7/comments",
		"PATCH /repos/acme/platform/issues/comments/" + itoa(ours[0].ID),
	}
	if strings.Join(methods, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(methods, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(errOut.String(), "comment created") || !strings.Contains(errOut.String(), "comment updated") {
		t.Fatalf("errOut:\n%s", errOut.String())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A fork's read-only token: GitHub answers 403; Publish warns (annotation and stderr), returns
// ErrReadOnly, and never prints the token.
func TestPublishReadOnlyFailsSoft(t *testing.T) {
	s := standIn(t)
	var annotations, errOut bytes.Buffer
	err := Publish(context.Background(), config(t, s, readToken), Post{Plugin: "flux-chain", Entry: "clusters/prod", Markdown: "x\n"}, &annotations, &errOut, true)
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("err = %v, want ErrReadOnly", err)
	}
	if len(s.Comments(7)) != 0 {
		t.Fatal("a comment was created with a read-only token")
	}
	if !strings.HasPrefix(annotations.String(), "::warning title=flux-chain%3A pull request comment not posted::") ||
		!strings.Contains(annotations.String(), "403 Resource not accessible by integration") {
		t.Fatalf("annotation:\n%s", annotations.String())
	}
	if !strings.Contains(errOut.String(), "# warning: ") || !strings.Contains(errOut.String(), "read-only GITHUB_TOKEN") {
		t.Fatalf("errOut:\n%s", errOut.String())
	}
	for _, out := range []string{annotations.String(), errOut.String(), err.Error()} {
		if strings.Contains(out, readToken) {
			t.Fatalf("token in output: %s", out)
		}
	}
}

// A report larger than a comment is cut at a line, its fence closed, with a line saying so;
// GitHub (the stand-in, which refuses bodies over 65,536 characters) accepts it.
func TestBodyFitsComment(t *testing.T) {
	s := standIn(t)
	md := "## flux-chain --repo: 40000 findings\n\n```\n" + strings.Repeat("| error | crd-order | a.yaml:1 | x |\n", 40000)
	c := config(t, s, writeToken)
	body := Body(c, "flux-chain", "clusters/prod", "v1", md)
	if len(body) > MaxBody {
		t.Fatalf("body is %d bytes", len(body))
	}
	if !strings.Contains(body, "**Cut short:**") || !strings.Contains(body, "65,536 characters per comment") || !strings.Contains(body, "\n```\n\n**Cut short") {
		t.Fatalf("body tail:\n%s", body[len(body)-600:])
	}
	if err := Publish(context.Background(), c, Post{Plugin: "flux-chain", Entry: "clusters/prod", Markdown: md}, &bytes.Buffer{}, &bytes.Buffer{}, false); err != nil {
		t.Fatal(err)
	}
}

func TestMarker(t *testing.T) {
	tests := []struct{ name, entry, want string }{
		{"plain", "clusters/prod-eu", "<!-- kubeforensics:safe-retire:clusters/prod-eu -->"},
		{"none", "", "<!-- kubeforensics:safe-retire:. -->"},
		{"closes the comment", "a-->b", "<!-- kubeforensics:safe-retire:a-%2D%3Eb -->"},
		{"newline and space", "a\nb c", "<!-- kubeforensics:safe-retire:a%0Ab%20c -->"},
		{"bang", "a--!>", "<!-- kubeforensics:safe-retire:a-%2D%21%3E -->"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Marker("safe-retire", tt.entry); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Control characters in the markdown (from repository content) are escaped in the body.
func TestBodyEscapesControlCharacters(t *testing.T) {
	body := Body(Config{}, "safe-retire", "x", "v1", "a\x1b[31mred\u202e\r\nb\n")
	if strings.ContainsAny(body, "\x1b\u202e\r") || !strings.Contains(body, `a\x1b[31mred\u202e`) {
		t.Fatalf("body: %q", body)
	}
}

func TestFromEnv(t *testing.T) {
	dir := t.TempDir()
	pr := filepath.Join(dir, "pr.json")
	push := filepath.Join(dir, "push.json")
	must(t, os.WriteFile(pr, []byte(`{"number":7,"pull_request":{"number":7,"head":{"sha":"0123456789abcdef0123456789abcdef01234567"}}}`), 0o600))
	must(t, os.WriteFile(push, []byte(`{"ref":"refs/heads/main"}`), 0o600))
	good := map[string]string{"GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "acme/platform", "GITHUB_EVENT_PATH": pr,
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "42"}
	with := func(k, v string) func(string) string {
		return func(key string) string {
			if key == k {
				return v
			}
			return good[key]
		}
	}
	c, err := FromEnv(with("", ""))
	if err != nil || c.Number != 7 || c.API.String() != DefaultAPIURL || c.RunURL != "https://github.com/acme/platform/actions/runs/42" || c.HeadSHA == "" {
		t.Fatalf("config %+v, %v", c, err)
	}
	tests := []struct{ name, key, value, want string }{
		{"no token", "GITHUB_TOKEN", "", "needs GITHUB_TOKEN"},
		{"bad repository", "GITHUB_REPOSITORY", "acme/platform/../x", "owner/name"},
		{"push event", "GITHUB_EVENT_PATH", push, "holds no pull_request"},
		{"cleartext api", "GITHUB_API_URL", "http://api.example.com", "only sent over https"},
		{"no event", "GITHUB_EVENT_PATH", "", "needs GITHUB_EVENT_PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := FromEnv(with(tt.key, tt.value)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if c, err := FromEnv(with("GITHUB_API_URL", "http://127.0.0.1:8080/")); err != nil || c.API.String() != "http://127.0.0.1:8080" {
		t.Fatalf("loopback: %+v, %v", c, err)
	}
}

// A Link header pointing at another host is not followed: the token would go there.
func TestNextPageStaysOnAPIHost(t *testing.T) {
	u, _ := url.Parse("https://api.github.com")
	c := NewClient(Config{API: u})
	if next, err := c.nextPage(`<https://api.github.com/repositories/1/issues/7/comments?page=2>; rel="next", <https://api.github.com/x?page=3>; rel="last"`); err != nil || next != "https://api.github.com/repositories/1/issues/7/comments?page=2" {
		t.Fatalf("next %q, %v", next, err)
	}
	if _, err := c.nextPage(`<https://evil.example/steal?page=2>; rel="next"`); err == nil {
		t.Fatal("followed a Link to another host")
	}
	if next, err := c.nextPage(""); next != "" || err != nil {
		t.Fatalf("no link: %q, %v", next, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
