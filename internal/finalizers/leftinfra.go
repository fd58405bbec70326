package finalizers

import (
	"regexp"
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

// cloudThings are the words of a field's name that say it identifies a resource a cloud hands
// out, longest first, with what to call it.
var cloudThings = []struct{ word, what string }{
	{"loadbalancer", "load balancer"}, {"securitygroup", "security group"}, {"listener", "load balancer listener"},
	{"targetgroup", "target group"}, {"instance", "cloud instance"}, {"volume", "volume"}, {"disk", "disk"},
	{"snapshot", "snapshot"}, {"subnet", "subnet"}, {"vpc", "network"}, {"network", "network"},
	{"gateway", "gateway"}, {"address", "address"}, {"eip", "address"}, {"bucket", "bucket"},
	{"certificate", "certificate"}, {"dnszone", "DNS zone"}, {"zone", "DNS zone"}, {"database", "database"},
}

// providerTokenRe is the shape clouds give the ids they hand out: a short lowercase prefix, a
// dash and a base-36 token (`lb-2ztq8h1k`, `lbl-6w1c9r0e`, `i-0abc…`, `ins-3k9x…`).
var providerTokenRe = regexp.MustCompile(`^[a-z]{1,10}-[0-9a-z]{6,40}$`)

// recordedProviderID names a resource outside the cluster whose id the object's status records:
// a status field named for a cloud resource and an id (`loadbalancerId`, `listenerID`,
// `instanceIds`) holding a token shaped like a cloud's id. The controller wrote it when it made
// or bound the resource; its cleanup acts on it, and a strip leaves it. A spec's such field is
// what the object asks to use (a placement), not what was made for it. "" when it is not one.
func recordedProviderID(path []string, key, value string) string {
	if len(path) < 2 || path[0] != "status" || !providerTokenRe.MatchString(value) {
		return ""
	}
	for _, s := range idSuffixes {
		stem, ok := strings.CutSuffix(key, s)
		if !ok || stem == "" {
			continue
		}
		for _, t := range cloudThings {
			if strings.HasSuffix(stem, t.word) {
				return t.what
			}
		}
		return ""
	}
	return ""
}
