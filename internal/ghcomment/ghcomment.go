// Package ghcomment keeps one pull-request comment per plugin and entry path up to date with
// a verdict: it reads where to post from a GitHub Actions run's environment (GITHUB_TOKEN,
// GITHUB_API_URL, GITHUB_REPOSITORY and the event payload), finds the comment by a hidden
// marker among the pull request's comments, edits it in place or creates it when there is
// none, and fits the body within GitHub's comment size. It talks to GITHUB_API_URL only, with
// bounded time and size, and never prints the token. What goes into the comment is a plugin's
// markdown (internal/ghactions escapes what others wrote); this package adds the marker, a
// footer and a last escape of control characters.
package ghcomment

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/ghactions"
	"github.com/kubeforensics/suite/internal/output"
)

// MaxBody is the longest comment GitHub accepts (65,536 characters). Bodies are measured in
// bytes, which are never fewer than characters, so a body within MaxBody is always accepted.
const MaxBody = 65536

// maxEvent bounds how much of the event payload is read: a pull_request payload is a few
// tens of KiB, and only its number and head are needed.
const maxEvent = 16 << 20

// DefaultAPIURL is GitHub.com's API, what GITHUB_API_URL holds there.
const DefaultAPIURL = "https://api.github.com"

// Config says where to post: the API, the token, the repository and the pull request.
type Config struct {
	API        *url.URL
	Token      string
	Repository string
	Number     int
	// HeadSHA is the pull request's head commit, named in the footer ("" when unknown).
	HeadSHA string
	// RunURL is the workflow run's page, where the step summary is ("" when unknown).
	RunURL string
}

var repoName = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// FromEnv reads the Config from a GitHub Actions environment. A missing or malformed
// variable, or an event that is not about a pull request, is bad input (exit 3).
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	c.Token = getenv("GITHUB_TOKEN")
	if c.Token == "" {
		return c, exitcode.UsageErrorf("--github-comment needs GITHUB_TOKEN (env: GITHUB_TOKEN: ${{ github.token }})")
	}
	c.Repository = getenv("GITHUB_REPOSITORY")
	if !repoName.MatchString(c.Repository) {
		return c, exitcode.UsageErrorf("--github-comment needs GITHUB_REPOSITORY as owner/name, got %q", output.Sanitize(c.Repository))
	}
	api, err := apiURL(getenv("GITHUB_API_URL"))
	if err != nil {
		return c, exitcode.UsageErrorf("--github-comment: GITHUB_API_URL: %v", err)
	}
	c.API = api
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return c, exitcode.UsageErrorf("--github-comment needs GITHUB_EVENT_PATH, the event payload of a pull_request run")
	}
	if c.Number, c.HeadSHA, err = readEvent(path); err != nil {
		return c, exitcode.WithCode(exitcode.Usage, fmt.Errorf("--github-comment: %w (event %s)", err, output.Sanitize(getenv("GITHUB_EVENT_NAME"))))
	}
	if server, run := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_RUN_ID"); server != "" && run != "" {
		if u, err := url.Parse(server); err == nil && u.Scheme == "https" && u.Host != "" && regexp.MustCompile(`^[0-9]+$`).MatchString(run) {
			c.RunURL = strings.TrimSuffix(server, "/") + "/" + c.Repository + "/actions/runs/" + run
		}
	}
	return c, nil
}

// apiURL parses GITHUB_API_URL (GitHub.com's when empty). The token goes to it, so it must be
// https, or http on a loopback address (a local stand-in).
func apiURL(raw string) (*url.URL, error) {
	if raw == "" {
		raw = DefaultAPIURL
	}
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	switch {
	case err != nil:
		return nil, err
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("%q is not an API base URL", output.Sanitize(raw))
	case u.Scheme == "https":
		return u, nil
	case u.Scheme == "http" && loopback(u.Hostname()):
		return u, nil
	}
	return nil, fmt.Errorf("%q: the token is only sent over https (or http to a loopback address)", output.Sanitize(raw))
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readEvent reads the pull request's number and head from the event payload at path.
func readEvent(path string) (int, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", fmt.Errorf("reading the event payload: %w", err)
	}
	defer f.Close()
	var ev struct {
		PullRequest *struct {
			Number int `json:"number"`
			Head   struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxEvent)).Decode(&ev); err != nil {
		return 0, "", fmt.Errorf("reading the event payload %s: %w", path, err)
	}
	if ev.PullRequest == nil || ev.PullRequest.Number <= 0 {
		return 0, "", errors.New("the event payload holds no pull_request: comments are posted on pull_request runs only")
	}
	sha := ev.PullRequest.Head.SHA
	if !regexp.MustCompile(`^[0-9a-f]{7,64}$`).MatchString(sha) {
		sha = ""
	}
	return ev.PullRequest.Number, sha, nil
}

// Marker is the hidden first line that identifies the comment of plugin for entry:
// <!-- kubeforensics:PLUGIN:ENTRY -->. The entry path comes from the repository, so every byte
// outside [A-Za-z0-9._/-], and a '-' after a '-', is percent-encoded: no entry can close the
// HTML comment early or be mistaken for another entry's marker.
func Marker(plugin, entry string) string {
	if entry == "" {
		entry = "."
	}
	var b strings.Builder
	for i := 0; i < len(entry); i++ {
		c := entry[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '/':
			b.WriteByte(c)
		case c == '-' && (i == 0 || entry[i-1] != '-'):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return "<!-- kubeforensics:" + plugin + ":" + b.String() + " -->"
}

// Body is the comment: the marker, a heading naming the plugin and entry path, the plugin's
// markdown, and a footer naming the head commit and the run. Markdown that would take the body
// past MaxBody is cut at a line, open fences and <details> closed, with a line saying what was
// cut and that the full report is in the run's step summary. Control characters other than
// newlines are escaped (output.Sanitize) on every line.
func Body(c Config, plugin, entry, version, markdown string) string {
	head := Marker(plugin, entry) + "\n"
	foot := "\n---\n<sub>kubeforensics " + plugin + " " + ghactions.Cell(version)
	if c.HeadSHA != "" {
		foot += " at " + c.HeadSHA
	}
	full := "The full report is in this workflow run's step summary."
	if c.RunURL != "" {
		foot += " · [workflow run](" + c.RunURL + ")"
		full = "The full report is in the step summary of the [workflow run](" + c.RunURL + ")."
	}
	foot += ". This comment is updated in place on every push.</sub>\n"
	markdown = clean(markdown)
	if entry != "" {
		markdown = "Entry path " + ghactions.Code(entry) + "\n\n" + markdown
	}
	budget := MaxBody - len(head) - len(foot)
	fitted := ghactions.FitMarkdown(markdown, budget, "comment", "GitHub keeps at most 65,536 characters per comment", full)
	return head + fitted + foot
}

// clean escapes, line by line, every control character but the newline.
func clean(md string) string {
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = output.Sanitize(l)
	}
	return strings.Join(lines, "\n")
}
