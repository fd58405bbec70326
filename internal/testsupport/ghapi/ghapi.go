// Package ghapi is a stand-in for the part of GitHub's REST API that kubeforensics calls: the
// comments of an issue or pull request (list with Link pagination, create, update), answered
// in GitHub's own shapes and status codes, on 127.0.0.1. It records every request, refuses
// unknown tokens (401) and lets a read-only token read but not write (403 "Resource not
// accessible by integration", what a pull request from a fork gets), and can serve release
// assets from a directory, so an install step downloads from it too.
package ghapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxBody is the longest comment body GitHub accepts, in characters.
const MaxBody = 65536

// repositoryID is the numeric id GitHub uses in the Link URLs it returns for a repository.
const repositoryID = 1296269

// User is a comment's author as GitHub shows it.
type User struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	Type  string `json:"type"`
}

// Bot is the author of comments made with a workflow's GITHUB_TOKEN.
func Bot() User { return User{Login: "github-actions[bot]", ID: 41898282, Type: "Bot"} }

// Comment is an issue comment in the fields GitHub returns.
type Comment struct {
	ID                int64  `json:"id"`
	NodeID            string `json:"node_id"`
	URL               string `json:"url"`
	HTMLURL           string `json:"html_url"`
	IssueURL          string `json:"issue_url"`
	Body              string `json:"body"`
	User              User   `json:"user"`
	CreatedAt         string `json:"created_at"`
	UpdatedAt         string `json:"updated_at"`
	AuthorAssociation string `json:"author_association"`
	// Issue is the number of the issue or pull request the comment is on (not in GitHub's JSON).
	Issue int `json:"-"`
}

// Request is one request the stand-in received. Token is the bearer token it carried, so tests
// can check authentication; it is never printed by the stand-in.
type Request struct {
	Method, Path, RawQuery string
	Token                  string
	Body                   string
	Status                 int
}

// Server is a running stand-in. Repository is the owner/name it serves; PerPage caps page
// sizes (GitHub's default is 30, its maximum 100) so tests see several pages.
type Server struct {
	URL        string
	Repository string

	srv *httptest.Server
	mu  sync.Mutex
	// tokens maps a token to whether it may write.
	tokens   map[string]bool
	comments []Comment
	requests []Request
	nextID   int64
	perPage  int
	assets   http.Handler
}

// Options configure a Server. Tokens maps each accepted token to whether it may write;
// AssetsDir, when set, is served under /releases/download/.
type Options struct {
	Repository string
	Tokens     map[string]bool
	PerPage    int
	AssetsDir  string
}

// Start serves the stand-in on 127.0.0.1 until Close.
func Start(o Options) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Repository: o.Repository, tokens: o.Tokens, nextID: 1000, perPage: o.PerPage}
	if s.perPage <= 0 {
		s.perPage = 30
	}
	if o.AssetsDir != "" {
		s.assets = http.StripPrefix("/releases/download/", http.FileServer(http.Dir(o.AssetsDir)))
	}
	s.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}}
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// AddComment puts a comment on issue n as if user had written it, and returns it.
func (s *Server) AddComment(n int, user User, body string) Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(n, user, body)
}

// Comments are the comments on issue n, oldest first.
func (s *Server) Comments(n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == n {
			out = append(out, c)
		}
	}
	return out
}

// Requests are the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) add(n int, user User, body string) Comment {
	s.nextID++
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(s.nextID) * time.Second).Format(time.RFC3339)
	api := fmt.Sprintf("%s/repos/%s/issues/comments/%d", s.URL, s.Repository, s.nextID)
	c := Comment{ID: s.nextID, NodeID: fmt.Sprintf("IC_kwDO%d", s.nextID), URL: api,
		HTMLURL:  fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", s.Repository, n, s.nextID),
		IssueURL: fmt.Sprintf("%s/repos/%s/issues/%d", s.URL, s.Repository, n),
		Body:     body, User: user, CreatedAt: now, UpdatedAt: now, AuthorAssociation: "NONE", Issue: n}
	s.comments = append(s.comments, c)
	return c
}

// ServeHTTP answers one request and records it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.assets != nil && strings.HasPrefix(r.URL.Path, "/releases/download/") {
		s.record(Request{Method: r.Method, Path: r.URL.Path, Status: http.StatusOK})
		s.assets.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4*MaxBody+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Token: bearer(r), Body: string(body)}
	status, out, header := s.answer(r, rec)
	rec.Status = status
	s.record(rec)
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "token "} {
		if strings.HasPrefix(h, p) {
			return strings.TrimPrefix(h, p)
		}
	}
	return ""
}

// apiError is GitHub's error body.
type apiError struct {
	Message          string           `json:"message"`
	DocumentationURL string           `json:"documentation_url"`
	Status           string           `json:"status"`
	Errors           []map[string]any `json:"errors,omitempty"`
}

func fail(status int, msg, doc string) (int, any, map[string]string) {
	return status, apiError{Message: msg, DocumentationURL: "https://docs.github.com/rest/issues/comments#" + doc, Status: strconv.Itoa(status)}, nil
}
