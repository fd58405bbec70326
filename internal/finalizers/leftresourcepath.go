package finalizers

import (
	"sort"
	"strings"
)

// nonRecordTop are the top-level fields of an object that record nothing it made outside the
// cluster: its type, its metadata, and the payload of a ConfigMap or Secret (never read: a
// Secret's data is never printed).
var nonRecordTop = map[string]bool{"apiVersion": true, "kind": true, "metadata": true, "data": true, "stringData": true, "binaryData": true}

// recordTops are the top-level fields recordedResources walks: spec and status, and the other
// fields of a type that keeps its record at the top level (a NetworkInfo's `vpcs`), sorted.
func recordTops(obj map[string]any) []string {
	tops := []string{"spec", "status"}
	var rest []string
	for k := range obj {
		if k != "spec" && k != "status" && !nonRecordTop[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(tops, rest...)
}

// resourcePath reports whether a field named `<noun>Path` holds the path of a resource of that
// noun in an external API: an absolute path whose second-to-last segment is the noun's plural
// (`vpcPath: /orgs/o/projects/p/vpcs/team-blue`). The field names what the value is, and the
// value says it is one of them: a resource the object records, not a file or a URL route.
func resourcePath(key, value string) bool {
	stem, ok := strings.CutSuffix(key, "path")
	if !ok || len(stem) < 3 || !strings.HasPrefix(value, "/") || strings.ContainsAny(value, " \t?#") {
		return false
	}
	segs := strings.Split(strings.Trim(value, "/"), "/")
	if len(segs) < 2 || segs[len(segs)-1] == "" {
		return false
	}
	plural := strings.ToLower(segs[len(segs)-2])
	return plural == stem+"s" || plural == stem+"es"
}
