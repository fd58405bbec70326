package finalizers

import (
	"strings"
	"unicode"
)

// infraStems begin a field that names the infrastructure made for the object as a whole.
var infraStems = []string{"infrastructure", "infra"}

// idSuffixes end a field that holds an identifier.
var idSuffixes = []string{"identifier", "ids", "id"}

// recordedInfraID names the infrastructure outside the cluster that a field's identifier marks:
// a field in the spec or status named `infraID`, `infrastructureID` or `infrastructureName` (the
// stem infra or infrastructure, an id or name suffix) holding one token. Installers and
// provisioners tag every cloud resource they create for the object with it, and the cleanup the
// finalizer waits for finds them by it (a cluster's instances, load balancers, disks, DNS
// records), so a strip leaves all of them, and this is the identifier to find them by. A value
// with spaces is prose, not an identifier. "" when it is not one.
func recordedInfraID(path []string, key, value string) string {
	if len(path) < 2 || (path[0] != "spec" && path[0] != "status") || strings.ContainsAny(value, " \t\n") || len(value) > 253 {
		return ""
	}
	for _, stem := range infraStems {
		rest, ok := strings.CutPrefix(key, stem)
		if !ok {
			continue
		}
		if rest == "name" || rest == "id" || rest == "ids" || rest == "identifier" {
			return "infrastructure tagged with ID"
		}
		return ""
	}
	return ""
}

// camelWords are the lowercase words of a CamelCase kind (`ClusterDeployment` → cluster,
// deployment).
func camelWords(kind string) []string {
	var out []string
	start := 0
	for i, r := range kind {
		if i > 0 && unicode.IsUpper(r) {
			out = append(out, strings.ToLower(kind[start:i]))
			start = i
		}
	}
	if start < len(kind) {
		out = append(out, strings.ToLower(kind[start:]))
	}
	return out
}

// recordedOwnKindID names the thing outside the cluster the object stands for, by the opaque
// identifier another system issued for it: a field in the spec or status whose name, less an
// id suffix, is one word of the object's own kind (`clusterID` of a ClusterDeployment), holding
// a UUID, a long hexadecimal token or a cloud identifier. The object records the id of the
// thing its kind names, which the other system made for it; a relation (`parentClusterID`) is
// another one, and a field named for another kind (`networkID` of a cluster) is a placement, not
// the object's own: neither is named. "" when it is not one.
func recordedOwnKindID(path []string, key, value, kind string) string {
	if len(path) < 2 || (path[0] != "spec" && path[0] != "status") || kind == "" {
		return ""
	}
	if !opaqueIDRe.MatchString(value) && !cloudIDRe.MatchString(value) {
		return ""
	}
	for _, s := range idSuffixes {
		stem, ok := strings.CutSuffix(key, s)
		if !ok || stem == "" {
			continue
		}
		for _, w := range camelWords(kind) {
			if stem == w {
				return "external " + w
			}
		}
		return ""
	}
	return ""
}
