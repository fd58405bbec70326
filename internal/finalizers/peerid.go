package finalizers

import (
	"strings"
	"unicode"
)

// idFieldWords splits a field name at its camelCase and snake_case boundaries, lowercased:
// `leaderSpu` → leader, spu; `spu_ids` → spu, ids.
func idFieldWords(field string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	rs := []rune(field)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// measureWords are the last words of a field name that, by the Kubernetes API conventions and
// common use, hold a measure, not an object's id: a port, a generation, a count, a size, a
// duration, a limit, a weight, a version.
var measureWords = map[string]bool{
	"port": true, "ports": true, "generation": true, "count": true, "size": true, "factor": true,
	"seconds": true, "minutes": true, "hours": true, "millis": true, "ms": true, "timeout": true,
	"limit": true, "percent": true, "percentage": true, "bytes": true, "retries": true, "attempts": true,
	"version": true, "priority": true, "weight": true, "threshold": true, "interval": true, "period": true,
	"duration": true, "ttl": true, "max": true, "min": true, "number": true, "capacity": true,
	"replicas": true, "partitions": true, "shards": true, "instances": true, "nodes": true,
}

// idTie says whether a top-level spec field of the object may hold the id of a peer of kind:
// how its name ties it ("" when it may not). A field whose name has the kind as a word
// (`spuId`, `leaderSpu`, `spus`) names it; any other field may hold it only when it is not a
// measure: a single integer under a plural name is a count (`replicas: 3`, `partitions: 1`)
// while a list under it is a set of members (`replicas: [0]`), and a name whose last word is a
// measure (`port`, `containerPort`, `generation`, `replicationFactor`, `timeoutSeconds`) is
// never an id, whatever its value.
func idTie(field, kind string, list bool) string {
	ws := idFieldWords(field)
	if len(ws) == 0 {
		return ""
	}
	k := strings.ToLower(kind)
	for _, w := range ws {
		if w == k || w == k+"s" || w == k+"es" {
			return "its name names the kind " + kind
		}
	}
	last := ws[len(ws)-1]
	if !list && (measureWords[last] || strings.HasSuffix(last, "s")) {
		return ""
	}
	if list && measureWords[last] && !pluralMembers(last) {
		return ""
	}
	return "its name names no measure"
}

// pluralMembers are plural measure words that, holding a list, name the members themselves
// (`replicas: [0]`: the ids of the replicas, not their count).
func pluralMembers(w string) bool {
	switch w {
	case "replicas", "partitions", "shards", "instances", "nodes":
		return true
	}
	return false
}
