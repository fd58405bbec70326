package ghcomment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/output"
)

// Bounds of one Upsert: a response larger than maxResponse is refused, at most maxPages of
// perPage comments are listed (a pull request with more is refused rather than given a second
// comment), and each request takes at most requestTimeout.
const (
	maxResponse    = 8 << 20
	maxPages       = 50
	perPage        = 100
	requestTimeout = 30 * time.Second
	// Timeout bounds a whole Upsert.
	Timeout = 2 * time.Minute
)

// ErrReadOnly is returned when GitHub refuses to write with the token (403): a pull request
// from a fork gets a read-only GITHUB_TOKEN.
var ErrReadOnly = errors.New("the token may not write comments")

// APIError is an answer GitHub gave with an error status. Message is GitHub's own text.
type APIError struct {
	Op      string
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.Op, e.Status, output.Sanitize(e.Message))
}

// Is makes a 403 an ErrReadOnly.
func (e *APIError) Is(target error) bool {
	return target == ErrReadOnly && e.Status == http.StatusForbidden
}

// Outcome says what Upsert did: "created" or "updated", and the comment's page.
type Outcome struct {
	Action  string
	ID      int64
	HTMLURL string
}

// comment is the part of GitHub's issue comment Upsert reads.
type comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"user"`
}

// Client posts comments for one Config.
type Client struct {
	cfg  Config
	http *http.Client
}

// NewClient returns a client that follows no redirect (a redirect could lead the token away
// from the API) and bounds each request's time.
func NewClient(c Config) *Client {
	return &Client{cfg: c, http: &http.Client{
		Timeout:       requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Upsert makes the pull request's comment that starts with marker hold body: it edits the
// oldest such comment written by a bot (a workflow's token comments as github-actions[bot]),
// or creates one when there is none. Comments by people that carry the marker are left alone:
// their author could edit them back later to show another verdict.
func (c *Client) Upsert(ctx context.Context, marker, body string) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	found, err := c.find(ctx, marker)
	if err != nil {
		return Outcome{}, c.scrub(err)
	}
	payload, err := json.Marshal(map[string]string{"body": body})
	if err != nil {
		return Outcome{}, err
	}
	var out comment
	action := "created"
	if found != nil {
		action = "updated"
		err = c.do(ctx, http.MethodPatch, c.endpoint(fmt.Sprintf("issues/comments/%d", found.ID)), payload, &out)
	} else {
		err = c.do(ctx, http.MethodPost, c.endpoint(fmt.Sprintf("issues/%d/comments", c.cfg.Number)), payload, &out)
	}
	if err != nil {
		return Outcome{}, c.scrub(err)
	}
	return Outcome{Action: action, ID: out.ID, HTMLURL: out.HTMLURL}, nil
}

// find lists the pull request's comments page by page, following GitHub's Link header, and
// returns the first that carries marker and was written by a bot.
func (c *Client) find(ctx context.Context, marker string) (*comment, error) {
	next := c.endpoint(fmt.Sprintf("issues/%d/comments", c.cfg.Number)) + fmt.Sprintf("?per_page=%d", perPage)
	for page := 1; next != ""; page++ {
		if page > maxPages {
			return nil, fmt.Errorf("the pull request has more than %d comments: not searched further, so no comment is posted (a second one could result)", maxPages*perPage)
		}
		var got []comment
		link, err := c.get(ctx, next, &got)
		if err != nil {
			return nil, err
		}
		for i := range got {
			if ours(got[i], marker) {
				return &got[i], nil
			}
		}
		if next, err = c.nextPage(link); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func ours(cm comment, marker string) bool {
	return cm.User.Type == "Bot" && (cm.Body == marker || strings.HasPrefix(cm.Body, marker+"\n") || strings.HasPrefix(cm.Body, marker+"\r\n"))
}

// nextPage is the rel="next" URL of a Link header, "" when there is none. It must be on the
// API's scheme and host: the token goes nowhere else.
func (c *Client) nextPage(link string) (string, error) {
	for _, part := range strings.Split(link, ",") {
		part = strings.TrimSpace(part)
		open, end := strings.IndexByte(part, '<'), strings.IndexByte(part, '>')
		if open != 0 || end < 0 || !strings.Contains(part[end:], `rel="next"`) {
			continue
		}
		u, err := url.Parse(part[1:end])
		if err != nil || u.Scheme != c.cfg.API.Scheme || u.Host != c.cfg.API.Host {
			return "", fmt.Errorf("the next page of comments is outside %s: not followed", c.cfg.API.Redacted())
		}
		return u.String(), nil
	}
	return "", nil
}

func (c *Client) endpoint(path string) string {
	return c.cfg.API.String() + "/repos/" + c.cfg.Repository + "/" + path
}

func (c *Client) get(ctx context.Context, u string, into any) (string, error) {
	resp, err := c.send(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if err := decode(resp, "GET "+path(u), into); err != nil {
		return "", err
	}
	return resp.Header.Get("Link"), nil
}

func (c *Client) do(ctx context.Context, method, u string, payload []byte, into any) error {
	resp, err := c.send(ctx, method, u, payload)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return decode(resp, method+" "+path(u), into)
}

func (c *Client) send(ctx context.Context, method, u string, payload []byte) (*http.Response, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "kubeforensics")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path(u), err)
	}
	return resp, nil
}

// decode reads at most maxResponse bytes of resp into into, or GitHub's error message.
func decode(resp *http.Response, op string, into any) error {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	switch {
	case err != nil:
		return fmt.Errorf("%s: reading the answer: %w", op, err)
	case len(raw) > maxResponse:
		return fmt.Errorf("%s: the answer is larger than %d MiB", op, maxResponse>>20)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &e) != nil || e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return &APIError{Op: op, Status: resp.StatusCode, Message: e.Message}
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// path is u without scheme, host and query, for messages.
func path(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "?"
	}
	return p.Path
}

// scrub keeps the token out of an error's text whatever produced it.
func (c *Client) scrub(err error) error {
	if c.cfg.Token == "" || !strings.Contains(err.Error(), c.cfg.Token) {
		return err
	}
	return &scrubbed{err: err, text: strings.ReplaceAll(err.Error(), c.cfg.Token, "***")}
}

type scrubbed struct {
	err  error
	text string
}

func (s *scrubbed) Error() string { return s.text }
func (s *scrubbed) Unwrap() error { return s.err }
