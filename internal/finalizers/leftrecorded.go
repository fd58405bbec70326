package finalizers

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxRecorded bounds the external resources named from one object, and maxWalk the fields
// visited to find them.
const (
	maxRecorded = 5
	maxWalk     = 2000
)

// cloudIDRe matches values shaped like an identifier outside the cluster: a provider URI
// (aws:///…, gce://…), an ARN, an Azure resource path, a GCP resource path, or the instance,
// volume, load balancer and network ids cloud APIs hand out (i-…, vol-…, lb-…, sg-…).
var cloudIDRe = regexp.MustCompile(`^([a-z][a-z0-9+.-]*://\S+|arn:[a-z0-9-]+:\S+|/subscriptions/\S+|projects/[^/\s]+/\S+|(i|vol|snap|lb|sg|subnet|vpc|eni|eipalloc|nat|ami|fs|elb)-[0-9a-f]{8,})$`)

// recordedKind names what a field holds outside the cluster, from the field's own name and
// value: "" when it holds nothing recognisable.
func recordedKind(path []string, value string) string {
	if value == "" || len(value) > 512 {
		return ""
	}
	key := strings.ToLower(path[len(path)-1])
	joined := strings.ToLower(strings.Join(path, "."))
	if kind := recordedDNS(path, key, value); kind != "" {
		return kind
	}
	if kind := recordedStorage(path, key, value); kind != "" {
		return kind
	}
	if kind := recordedAddress(path, key, value); kind != "" {
		return kind
	}
	if kind := recordedIdentity(path, key, value); kind != "" {
		return kind
	}
	if kind := recordedOpaqueID(path, key, value); kind != "" {
		return kind
	}
	if kind := recordedInfraID(path, key, value); kind != "" {
		return kind
	}
	switch {
	case key == "providerid" || key == "instanceid" || key == "provideridlist" || key == "providerids" || key == "instanceids":
		// A list of them (a node pool's `providerIDList`) names one instance per entry.
		return "cloud instance"
	case key == "volumehandle" || key == "volumeid" || strings.HasSuffix(key, "diskid") || key == "diskuri":
		return "volume"
	case (key == "hostname" || key == "ip") && strings.Contains(joined, "loadbalancer"):
		return "load balancer"
	case resourcePath(key, value):
		// Before the node-local check: a path that names its own resource type is one.
		return "external resource"
	case (strings.HasSuffix(key, "path") || strings.HasSuffix(key, "dir")) && nodeLocalPath(path, value):
		return "node-local path"
	case key == "arn" || strings.HasSuffix(key, "arn") || strings.HasSuffix(key, "id") || strings.HasSuffix(key, "ids"):
		if cloudIDRe.MatchString(value) && !placementInSpec(path, value) && !actsUnderInSpec(path) {
			return "external resource"
		}
	case strings.HasSuffix(key, "uri") && path[0] != "spec":
		// A spec's URI is an address the object reads from or writes to (a model's
		// storageUri), as a spec's storage location is: only one the status records is
		// something the controller made.
		if cloudIDRe.MatchString(value) {
			return "external resource"
		}
	}
	// Last: an id of a cloud's own shape, in a field named for what it identifies.
	return recordedProviderID(path, key, value)
}

// recordedResources walks the object's spec, status and other top-level fields (recordTops) for fields that record something
// outside the cluster (recordedKind), as `status.providerID=aws:///…` with what it is, sorted and
// bounded: what a strip may leave behind when no table row knows the object's product.
func recordedResources(obj *unstructured.Unstructured) []string {
	var out []string
	visited := 0
	// parent is the map a value sits in: the fields beside it can say where it lives.
	var walk func(path []string, v any, parent map[string]any)
	walk = func(path []string, v any, parent map[string]any) {
		if visited++; visited > maxWalk {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(append(append([]string(nil), path...), k), c, t)
			}
		case []any:
			for _, c := range t {
				walk(path, c, parent)
			}
		case string:
			kind := recordedKind(path, t)
			if kind == "" {
				kind = recordedCounterpart(path, t, obj.GetKind(), obj.GetName())
			}
			if kind == "" {
				kind = recordedOwnKindID(path, strings.ToLower(path[len(path)-1]), t, obj.GetKind())
			}
			if kind == "" {
				return
			}
			where := ""
			if store := pathStore(parent); kind == "node-local path" && !saysNode(path[len(path)-1]) && len(store) > 0 {
				kind, where = "path", " in "+strings.Join(store, ", ")
			}
			if z := dnsZone(parent); kind == "DNS record" && z != "" {
				where = " in zone " + z
			}
			out = append(out, fmt.Sprintf("%s %s%s (%s)", kind, t, where, strings.Join(path, ".")))
		}
	}
	for _, top := range recordTops(obj.Object) {
		if v, ok := obj.Object[top]; ok {
			walk([]string{top}, v, nil)
		}
	}
	sort.Strings(out)
	out = slices.Compact(out)
	if len(out) > maxRecorded {
		out = append(out[:maxRecorded], fmt.Sprintf("and %d more", len(out)-maxRecorded))
	}
	return out
}
