package mcpserver

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// originGuard refuses with 403 a request whose Origin header is present and names neither a
// loopback origin nor one of allowed (exact origins, from --allow-origin). A page on another
// site that a browser lets reach the loopback server (DNS rebinding, or a plain cross-site
// request) carries its own Origin, so it never reaches the clusters; clients that are not
// browsers send no Origin and are served.
func originGuard(allowed []string, next http.Handler) http.Handler {
	set := make(map[string]bool, len(allowed))
	for _, o := range allowed {
		set[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origins, present := r.Header["Origin"]
		if present && (len(origins) != 1 || !(set[origins[0]] || loopbackOrigin(origins[0]))) {
			http.Error(w, "Forbidden: this server answers only requests without an Origin, from a loopback origin, or from an origin given with --allow-origin", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin says whether origin is http or https on localhost, 127.0.0.1 or [::1], with
// any port or none, and nothing else (no path, user or query).
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false
	}
	if p := u.Port(); p != "" && strings.Trim(p, "0123456789") != "" {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return u.Host != "::1" // the IPv6 host needs its brackets
	}
	return false
}

// checkOrigins refuses an --allow-origin value that is not an exact origin,
// scheme://host[:port] with nothing after it, as a browser sends it.
func checkOrigins(origins []string) error {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.ToLower(o) != o {
			return exitcode.UsageErrorf("--allow-origin %q: give an exact origin, scheme://host[:port] in lower case (https://app.example.com:8443)", o)
		}
		if _, _, err := net.SplitHostPort(u.Host); err != nil && strings.Contains(u.Host, ":") && !strings.HasSuffix(u.Host, "]") {
			return exitcode.UsageErrorf("--allow-origin %q: %v", o, err)
		}
	}
	return nil
}
