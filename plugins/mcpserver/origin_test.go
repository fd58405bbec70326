package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// httpURL waits for the server's address on its log.
func httpURL(t *testing.T, log *syncBuffer) string {
	t.Helper()
	addr := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := addr.FindStringSubmatch(log.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no address on stderr:\n%s", log.String())
	return ""
}

// Over real HTTP on 127.0.0.1: a request without an Origin, from a loopback origin or from an
// --allow-origin origin is served; any other Origin (a page on another site, DNS rebinding)
// is refused with 403 before the MCP handler sees it.
func TestHTTPOriginCheck(t *testing.T) {
	log, stop := serve(t, strings.NewReader(""), io.Discard, "--kubeconfig", emptyKubeconfig(t), "--http", "127.0.0.1:0",
		"--repo-root", t.TempDir(), "--allow-origin", "https://app.example:8443", "--allow-origin", "http://tool.example")
	url := httpURL(t, log)
	client := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	for _, tc := range []struct {
		origin string // "-" sends no Origin header
		want   int
	}{
		{"-", http.StatusOK},
		{"http://localhost", http.StatusOK},
		{"http://localhost:6274", http.StatusOK},
		{"https://localhost:8443", http.StatusOK},
		{"http://127.0.0.1:3000", http.StatusOK},
		{"http://[::1]:3000", http.StatusOK},
		{"https://app.example:8443", http.StatusOK},
		{"http://tool.example", http.StatusOK},
		{"http://evil.example", http.StatusForbidden},
		{"https://evil.example:443", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"http://127.0.0.1.evil.example:3000", http.StatusForbidden},
		{"http://evil.example/http://localhost", http.StatusForbidden},
		{"file://localhost", http.StatusForbidden},
		{"https://app.example", http.StatusForbidden},
		{"http://app.example:8443", http.StatusForbidden},
		{"http://127.0.0.2", http.StatusForbidden},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(initialize))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.origin != "-" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.want {
				t.Fatalf("Origin %q: status %d, want %d: %s", tc.origin, resp.StatusCode, tc.want, body)
			}
			if tc.want == http.StatusOK && !strings.Contains(string(body), `"serverInfo"`) {
				t.Errorf("Origin %q: served, but not the initialize answer: %s", tc.origin, body)
			}
		})
	}
	stop(true)
}

// --allow-origin takes exact origins, and only with --http.
func TestAllowOriginRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a path", []string{"--http", "127.0.0.1:0", "--allow-origin", "https://app.example/"}, "exact origin"},
		{"no scheme", []string{"--http", "127.0.0.1:0", "--allow-origin", "app.example"}, "exact origin"},
		{"a wildcard", []string{"--http", "127.0.0.1:0", "--allow-origin", "*"}, "exact origin"},
		{"upper case", []string{"--http", "127.0.0.1:0", "--allow-origin", "https://App.example"}, "exact origin"},
		{"stdio", []string{"--allow-origin", "https://app.example"}, "--http only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log, stop := serve(t, strings.NewReader(""), io.Discard, append([]string{"--kubeconfig", emptyKubeconfig(t), "--repo-root", t.TempDir()}, tc.args...)...)
			if code := stop(false); code != 3 || !strings.Contains(log.String(), tc.want) {
				t.Errorf("exit %d, want 3 with %q:\n%s", code, tc.want, log.String())
			}
		})
	}
}
