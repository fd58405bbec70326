package finalizers

import "strings"

// requestPathWords are field names under which a path is part of a request, not a place on a
// node: HTTP routes and their matches, probes and health monitors, rewrites and redirects, URLs
// and endpoints; and paths inside a container (a template's container, the files a step reads
// or writes as inputs, outputs and artifacts, a place inside a Pod's volumes), which go with the
// container; and the path a gateway listens on or proxies to.
var requestPathWords = []string{"http", "paths", "route", "rule", "match", "prefix", "rewrite", "redirect",
	"probe", "httpget", "url", "uri", "ingress", "endpoint", "webhook", "backend", "listen", "proxy", "monitor", "health",
	"container", "artifact", "output", "input", "volume"}

// nodeLocalPath reports whether a field ending in `path` or `dir` (path, the field's path from
// spec or status, lowercased) holding value names a place on a node's filesystem: an absolute
// path below the root, outside mounts, and not under a field that describes a request (an HTTP
// route's `paths[].path: /` is where requests go, and nothing of it stays on a node).
func nodeLocalPath(path []string, value string) bool {
	if !strings.HasPrefix(value, "/") || strings.Trim(value, "/") == "" {
		return false
	}
	for _, p := range path {
		p = strings.ToLower(p)
		if strings.Contains(p, "mount") {
			return false
		}
		for _, w := range requestPathWords {
			if strings.Contains(p, w) {
				return false
			}
		}
	}
	return true
}
