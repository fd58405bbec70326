package ghapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// answer routes one API request: the status, the JSON body and extra headers.
func (s *Server) answer(r *http.Request, rec Request) (int, any, map[string]string) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	write, known := s.tokens[rec.Token]
	switch {
	case rec.Token == "":
		return fail(http.StatusUnauthorized, "Requires authentication", "list-issue-comments")
	case !known:
		return fail(http.StatusUnauthorized, "Bad credentials", "list-issue-comments")
	}
	repo, rest, ok := s.repoPath(parts)
	if !ok || repo != s.Repository {
		return fail(http.StatusNotFound, "Not Found", "list-issue-comments")
	}
	switch {
	case len(rest) == 3 && rest[0] == "issues" && rest[2] == "comments":
		n, err := strconv.Atoi(rest[1])
		if err != nil {
			return fail(http.StatusNotFound, "Not Found", "list-issue-comments")
		}
		switch r.Method {
		case http.MethodGet:
			return s.list(r.URL, n)
		case http.MethodPost:
			if !write {
				return fail(http.StatusForbidden, "Resource not accessible by integration", "create-an-issue-comment")
			}
			body, st, out := decodeBody(rec.Body, "create-an-issue-comment")
			if st != 0 {
				return st, out, nil
			}
			s.mu.Lock()
			c := s.add(n, Bot(), body)
			s.mu.Unlock()
			return http.StatusCreated, c, map[string]string{"Location": c.URL}
		}
	case len(rest) == 3 && rest[0] == "issues" && rest[1] == "comments" && r.Method == http.MethodPatch:
		id, err := strconv.ParseInt(rest[2], 10, 64)
		if err != nil {
			return fail(http.StatusNotFound, "Not Found", "update-an-issue-comment")
		}
		if !write {
			return fail(http.StatusForbidden, "Resource not accessible by integration", "update-an-issue-comment")
		}
		body, st, out := decodeBody(rec.Body, "update-an-issue-comment")
		if st != 0 {
			return st, out, nil
		}
		return s.update(id, body)
	}
	return fail(http.StatusNotFound, "Not Found", "")
}

// repoPath splits /repos/{owner}/{name}/... and /repositories/{id}/... (the form of GitHub's
// Link URLs) into the repository and the rest of the path.
func (s *Server) repoPath(parts []string) (string, []string, bool) {
	switch {
	case len(parts) >= 3 && parts[0] == "repos":
		return parts[1] + "/" + parts[2], parts[3:], true
	case len(parts) >= 2 && parts[0] == "repositories" && parts[1] == strconv.Itoa(repositoryID):
		return s.Repository, parts[2:], true
	}
	return "", nil, false
}

// list answers one page of an issue's comments with GitHub's Link header.
func (s *Server) list(u *url.URL, n int) (int, any, map[string]string) {
	q := u.Query()
	per, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		per, _ = strconv.Atoi(v)
	}
	if v := q.Get("page"); v != "" {
		page, _ = strconv.Atoi(v)
	}
	per = min(max(per, 1), 100, s.perPage)
	page = max(page, 1)
	all := s.Comments(n)
	out := []Comment{}
	if from := (page - 1) * per; from < len(all) {
		out = all[from:min(from+per, len(all))]
	}
	last := max((len(all)+per-1)/per, 1)
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s/repositories/%d/issues/%d/comments?per_page=%d&page=%d>; rel="%s"`, s.URL, repositoryID, n, per, p, rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	h := map[string]string{}
	if len(links) > 0 {
		h["Link"] = strings.Join(links, ", ")
	}
	return http.StatusOK, out, h
}

func (s *Server) update(id int64, body string) (int, any, map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.comments {
		if s.comments[i].ID == id {
			s.comments[i].Body = body
			s.comments[i].UpdatedAt = "2026-01-02T04:00:00Z"
			return http.StatusOK, s.comments[i], nil
		}
	}
	return fail(http.StatusNotFound, "Not Found", "update-an-issue-comment")
}

// decodeBody reads {"body": "..."}, refusing what GitHub refuses with 422.
func decodeBody(raw, doc string) (string, int, any) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		return "", http.StatusBadRequest, apiError{Message: "Problems parsing JSON", DocumentationURL: "https://docs.github.com/rest/issues/comments#" + doc, Status: "400"}
	}
	invalid := func(msg string) (string, int, any) {
		return "", http.StatusUnprocessableEntity, apiError{Message: "Validation Failed", Status: "422",
			DocumentationURL: "https://docs.github.com/rest/issues/comments#" + doc,
			Errors:           []map[string]any{{"resource": "IssueComment", "code": "custom", "field": "body", "message": msg}}}
	}
	switch {
	case in.Body == nil || *in.Body == "":
		return invalid("body wasn't supplied.")
	case utf8.RuneCountInString(*in.Body) > MaxBody:
		return invalid(fmt.Sprintf("body is too long (maximum is %d characters)", MaxBody))
	}
	return *in.Body, 0, nil
}
