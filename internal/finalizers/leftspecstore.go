package finalizers

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// maxSpecStoreDepth bounds the walk of a spec for the storage it names and its removal switch.
const maxSpecStoreDepth = 5

// removalSwitch is a boolean spec field that asks the object's controller to delete what the
// object stores outside the cluster when the object is removed: `wipeOut`, `purge`,
// `deleteOnRemoval`, `cleanupOnDeletion`, `deleteData`, `removeBackend`.
var removalSwitch = regexp.MustCompile(`(?i)^(wipe|purge)|^(delete|cleanup|remove|destroy)(on|when|upon)?(removal|deletion|delete|data|backend|remote|external|storage|bucket|contents?)`)

// storeSiblings are the fields beside a bucket that say where it lives.
var storeSiblings = []string{"endpoint", "region", "prefix", "path"}

// specStore is a place outside the cluster that the object's spec names as where it stores
// data (a bucket or a blob container), and the spec's removal switch.
type specStore struct {
	places []string
	// switchPath is the removal switch's path, "" without one; switchOn says it is true.
	switchPath string
	switchOn   bool
}

// readSpecStore walks the object's spec for the buckets (a `bucket`/`bucketName` string, or a
// `container` beside a `prefix`) it stores data in, with the fields beside each that say where
// (endpoint, region, prefix, path), and for a removal switch.
func readSpecStore(obj *unstructured.Unstructured) specStore {
	var s specStore
	spec, ok := obj.Object["spec"].(map[string]any)
	if !ok {
		return s
	}
	var walk func(m map[string]any, path string, depth int)
	walk = func(m map[string]any, path string, depth int) {
		if depth > maxSpecStoreDepth {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p := path + "." + k
			switch v := m[k].(type) {
			case map[string]any:
				walk(v, p, depth+1)
			case bool:
				if removalSwitch.MatchString(k) && (s.switchPath == "" || v && !s.switchOn) {
					s.switchPath, s.switchOn = p, v
				}
			case string:
				lk := strings.ToLower(k)
				_, hasPrefix := m["prefix"]
				if v == "" || !(lk == "bucket" || lk == "bucketname" || lk == "container" && hasPrefix) {
					continue
				}
				var where []string
				for _, sib := range storeSiblings {
					if sv, ok := m[sib].(string); ok && sv != "" {
						where = append(where, sib+" "+sv)
					}
				}
				place := fmt.Sprintf("bucket %s (%s", v, p)
				if len(where) > 0 {
					place += "; " + strings.Join(where, ", ")
				}
				s.places = append(s.places, place+")")
			}
		}
	}
	walk(spec, "spec", 0)
	return s
}

// cost says what a strip leaves of the store and what the controller would have done: a
// removal switch set true asks the controller to delete the data on removal, which a strip by
// hand skips; without one, or with it false, the data stays either way. "" when the spec names
// neither a store nor a switch.
func (s specStore) cost() string {
	var parts []string
	if len(s.places) > 0 {
		parts = append(parts, "the data the object's spec stores outside the cluster stays where it is: "+strings.Join(s.places, ", "))
	}
	switch {
	case s.switchOn:
		parts = append(parts, fmt.Sprintf("%s is true: its controller would have deleted that data when the object is removed, and removing the finalizer by hand does not: the outside data is not deleted; delete it yourself if it is meant to go", s.switchPath))
	case s.switchPath != "":
		parts = append(parts, fmt.Sprintf("%s is false: its controller would not have deleted that data either", s.switchPath))
	case len(s.places) > 0:
		parts = append(parts, "no switch in its spec (a wipe, purge or delete-on-removal field) asks its controller to delete it on removal")
	}
	return strings.Join(parts, "; ")
}

// nameSpecStore adds to the cost of a strip offered first (not as a last resort) what the
// object's spec says it stores outside the cluster and whether it asks its controller to delete
// that on removal: once the strip is the way out, what it leaves must be plain.
func nameSpecStore(e *Explanation, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	c := readSpecStore(obj).cost()
	if c == "" {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if len(f.Remedies) == 0 || f.Remedies[0].Code != ReasonStripFinalizer || f.Remedies[0].LastResort || strings.Contains(f.Remedies[0].Cost, c) {
			continue
		}
		r := &f.Remedies[0]
		switch {
		case r.Cost == "":
			r.Cost = c
		case genericCost(f.Remedies[:1]):
			// What the spec names replaces the generic description of an unknown cleanup.
			r.Cost = "left behind: " + c
		default:
			r.Cost += "; " + c
		}
	}
}
