package finalizers

import (
	"sort"
	"strings"
)

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

// storeKeySuffixes end the names of fields that say which store an object's data lives in: a
// backup repository, a bucket, an object or file store, a claim or volume.
var storeKeySuffixes = []string{"reponame", "repository", "repo", "bucket", "bucketname", "storename", "claimname", "volumename"}

// saysNode reports whether a field's own name says its path is on a host (`hostPath`,
// `dataDirHostPath`, `localPath`, `nodePath`): such a path is a node's whatever is beside it.
func saysNode(key string) bool {
	k := strings.ToLower(key)
	return strings.Contains(k, "host") || strings.Contains(k, "node") || strings.Contains(k, "local")
}

// pathStore names the store a recorded path lives in, from the fields beside it (a Backup's
// `status.path` beside `status.backupRepoName` is a path inside that repository, not on a
// node; unless the field's own name says host, saysNode), sorted; nil when no field beside it names one, and the path is then read as a node's.
func pathStore(siblings map[string]any) []string {
	var out []string
	for k, v := range siblings {
		s, ok := v.(string)
		if !ok || s == "" || len(s) > 253 {
			continue
		}
		lk := strings.ToLower(k)
		for _, suffix := range storeKeySuffixes {
			if strings.HasSuffix(lk, suffix) {
				out = append(out, k+" "+s)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
