package helmjudge

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// OnDelete is what a custom resource shows of what its operator does with the state it made
// (a bucket, a database, a cloud volume, a backup repository) when the resource is deleted.
// At most one field is set; all "" when the resource shows nothing.
type OnDelete struct {
	// Deletes names the evidence that the operator deletes state: a storage request
	// (StorageRequest), a size of storage (`quotas.maxSize: 100Gi`), or a deletion policy
	// whose value deletes (`spec.deletionPolicy: Delete`).
	Deletes string
	// Keeps names a deletion policy whose value keeps the state (`spec.reclaimPolicy: Retain`,
	// `databaseReclaimPolicy: retain`, an annotation `…/deletion-policy: abandon`).
	Keeps string
	// Unsure names a deletion policy whose value says neither.
	Unsure string
}

// StateOnDelete reads OnDelete from o alone: a deletion policy the object sets (in its spec,
// or as an annotation `…/deletion-policy` or `…/reclaim-policy`) decides first, then a storage
// request or a size of storage in its spec. Only custom resources are read, as for
// StorageRequest.
func StateOnDelete(o *unstructured.Unstructured) OnDelete {
	if o == nil || !CustomGroup(o.GroupVersionKind().Group) || strings.HasSuffix(o.GetKind(), "Template") {
		return OnDelete{}
	}
	var policies []Policy
	for _, k := range slices.Sorted(maps.Keys(o.GetAnnotations())) {
		_, name, _ := strings.Cut(k, "/")
		if name == "deletion-policy" || name == "reclaim-policy" {
			policies = append(policies, Policy{Path: "annotation " + k, Field: name, Value: o.GetAnnotations()[k]})
		}
	}
	spec, _ := o.Object["spec"].(map[string]any)
	policies = append(policies, policiesIn(spec, "spec", 0)...)
	if d := Decide(policies); d != (OnDelete{}) {
		return d
	}
	if where := StorageRequest(o); where != "" {
		return OnDelete{Deletes: "its operator makes storage from it, " + where + "; deleting it lets the operator delete what it made, and whether the claims go too is the operator's choice, not in the repository"}
	}
	if where := sizeIn(spec, "spec", "", 0); where != "" {
		return OnDelete{Deletes: "its spec sizes the storage its operator makes, " + where + "; deleting it lets the operator delete that storage and what it holds"}
	}
	return OnDelete{}
}

// Policy is one deletion-policy field and its value (or a CRD schema's default for it).
type Policy struct {
	Path, Field string
	Value       any
}

// Decide weighs policies: one that deletes wins, then one whose value says neither, then one
// that keeps.
func Decide(policies []Policy) OnDelete {
	var d OnDelete
	for _, p := range policies {
		what := fmt.Sprintf("%s: %v", p.Path, p.Value)
		switch deletesBy(p.Field, p.Value) {
		case verdictDeletes:
			if d.Deletes == "" {
				d.Deletes = "its deletion policy deletes what its operator made, outside the cluster too, " + what
			}
		case verdictKeeps:
			if d.Keeps == "" {
				d.Keeps = what
			}
		default:
			if d.Unsure == "" {
				d.Unsure = what
			}
		}
	}
	switch {
	case d.Deletes != "":
		return OnDelete{Deletes: d.Deletes}
	case d.Unsure != "":
		return OnDelete{Unsure: d.Unsure}
	}
	return d
}

// IsPolicyField says whether a field (a spec key, in any case) names what an operator does
// with what it made when its resource is deleted: `deletionPolicy`, `reclaimPolicy`,
// `retainPolicy`, `…OnDelete`, `whenDeleted`, with any prefix (`databaseReclaimPolicy`).
// `retentionPolicy` is not one: it says how long backups are kept, not what a deletion does.
func IsPolicyField(k string) bool {
	k = strings.ToLower(k)
	for _, s := range []string{"deletionpolicy", "deletepolicy", "reclaimpolicy", "retainpolicy", "ondelete", "ondeletion", "whendeleted"} {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}

type verdict int

const (
	verdictUnsure verdict = iota
	verdictDeletes
	verdictKeeps
)

// deletesBy classifies a policy's value: a word (Delete, Retain, Orphan, Abandon, …), or a
// boolean read by what the field's name says it turns on (`dropOnDelete: true` deletes,
// `retainOnDelete: true` keeps).
func deletesBy(field string, value any) verdict {
	if b, ok := value.(bool); ok {
		f := strings.ToLower(field)
		switch {
		case containsAny(f, "retain", "keep", "preserve", "orphan", "protect"):
			if b {
				return verdictKeeps
			}
			return verdictDeletes
		case containsAny(f, "delete", "drop", "remove", "purge", "wipe", "destroy", "cleanup"):
			if b {
				return verdictDeletes
			}
			return verdictKeeps
		}
		return verdictUnsure
	}
	s, ok := value.(string)
	if !ok {
		return verdictUnsure
	}
	switch strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(s)) {
	case "delete", "deleted", "destroy", "purge", "remove", "wipe", "wipeout", "drop", "deleteall", "cascade":
		return verdictDeletes
	case "retain", "orphan", "keep", "abandon", "none", "detach", "detachondelete", "preserve", "snapshot":
		return verdictKeeps
	}
	return verdictUnsure
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// policiesIn lists the deletion-policy fields m sets with a scalar value, skipping what
// StorageRequest skips (Helm values, pod volumes).
func policiesIn(m map[string]any, path string, depth int) []Policy {
	if depth > maxStorageDepth {
		return nil
	}
	var out []Policy
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := path + "." + k
		switch v := m[k].(type) {
		case map[string]any:
			if !notRequests[k] {
				out = append(out, policiesIn(v, p, depth+1)...)
			}
		case []any:
			if notRequests[k] {
				continue
			}
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					out = append(out, policiesIn(em, fmt.Sprintf("%s[%d]", p, i), depth+1)...)
				}
			}
		case string, bool:
			if IsPolicyField(k) {
				out = append(out, Policy{Path: p, Field: k, Value: v})
			}
		}
	}
	return out
}

// byteQuantity is a size of storage: a number with a byte unit (10Gi, 500M, 50GB), never a bare
// number (a key size of 4096 bits, a replica count).
var byteQuantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*([KMGTPE]i|[KMGTPE]B?|kB?)$`)

// sizeKeys are the spec keys that size the storage an operator makes (`quotas.maxSize` of a
// bucket, `capacity` of a volume); any key under a quota does. A pod's `resources` (memory)
// and a `…Limit` (an emptyDir's sizeLimit) are not among them, nor a retention size, which
// bounds data the operator keeps elsewhere.
var sizeKeys = map[string]bool{"size": true, "maxsize": true, "capacity": true, "storagesize": true, "disksize": true, "volumesize": true, "datasize": true, "storagecapacity": true, "storage": true}

// sizeIn walks m for a size of storage and returns where it is, "" when there is none.
func sizeIn(m map[string]any, path, parent string, depth int) string {
	if depth > maxStorageDepth {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p := path + "." + k
		switch v := m[k].(type) {
		case map[string]any:
			if notRequests[k] || k == "resources" {
				continue
			}
			if d := sizeIn(v, p, k, depth+1); d != "" {
				return d
			}
		case []any:
			if notRequests[k] || k == "resources" {
				continue
			}
			for i, e := range v {
				if em, ok := e.(map[string]any); ok {
					if d := sizeIn(em, fmt.Sprintf("%s[%d]", p, i), k, depth+1); d != "" {
						return d
					}
				}
			}
		case string:
			quota := strings.Contains(strings.ToLower(parent), "quota")
			if (sizeKeys[strings.ToLower(k)] || quota) && byteQuantity.MatchString(strings.TrimSpace(v)) {
				return fmt.Sprintf("%s: %s", p, v)
			}
		}
	}
	return ""
}
