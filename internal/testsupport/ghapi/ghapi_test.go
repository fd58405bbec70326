package ghapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func call(t *testing.T, method, url, token, body string) (*http.Response, map[string]any, []any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var obj map[string]any
	var list []any
	if json.Unmarshal(raw, &obj) != nil {
		_ = json.Unmarshal(raw, &list)
	}
	return resp, obj, list
}

// The stand-in answers as GitHub does: 401 without a known token, 403 "Resource not accessible
// by integration" when a read-only token writes, 422 for a body over 65,536 characters, 201 and
// the comment on create, pages with a Link header whose next URL uses /repositories/{id}.
func TestResponses(t *testing.T) {
	s, err := Start(Options{Repository: "o/r", PerPage: 1, Tokens: map[string]bool{"w": true, "r": false}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	list := s.URL + "/repos/o/r/issues/3/comments"
	tests := []struct {
		name, method, url, token, body string
		status                         int
		message                        string
	}{
		{"no token", "GET", list, "", "", 401, "Requires authentication"},
		{"unknown token", "GET", list, "x", "", 401, "Bad credentials"},
		{"read-only create", "POST", list, "r", `{"body":"a"}`, 403, "Resource not accessible by integration"},
		{"read-only update", "PATCH", s.URL + "/repos/o/r/issues/comments/1", "r", `{"body":"a"}`, 403, "Resource not accessible by integration"},
		{"too long", "POST", list, "w", `{"body":"` + strings.Repeat("é", MaxBody+1) + `"}`, 422, "Validation Failed"},
		{"other repository", "GET", s.URL + "/repos/o/other/issues/3/comments", "w", "", 404, "Not Found"},
		{"create", "POST", list, "w", `{"body":"one"}`, 201, ""},
		{"create again", "POST", list, "w", `{"body":"two"}`, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, obj, _ := call(t, tt.method, tt.url, tt.token, tt.body)
			if resp.StatusCode != tt.status || tt.message != "" && obj["message"] != tt.message {
				t.Fatalf("%d %v, want %d %q", resp.StatusCode, obj, tt.status, tt.message)
			}
		})
	}
	resp, _, page := call(t, "GET", list+"?per_page=1", "r", "")
	link := resp.Header.Get("Link")
	if len(page) != 1 || !strings.Contains(link, `/repositories/1296269/issues/3/comments?per_page=1&page=2>; rel="next"`) || !strings.Contains(link, `rel="last"`) {
		t.Fatalf("page 1: %v, Link %q", page, link)
	}
	resp, _, page = call(t, "GET", s.URL+"/repositories/1296269/issues/3/comments?per_page=1&page=2", "r", "")
	if c, _ := page[0].(map[string]any); len(page) != 1 || c["body"] != "two" || strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("page 2: %v, Link %q", page, resp.Header.Get("Link"))
	}
}
