package finalizers

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// keepWords and workNames, both in a boolean spec field's name, make it a switch that lets the
// object go without the finalizer's outside work (`preserveOnDelete`, `retainOnDeletion`,
// `orphanOnDelete`, `skipCleanup`): when true, the controller removes the finalizer and leaves
// what it would have cleaned up.
var (
	keepWords = []string{"preserve", "retain", "keep", "orphan", "abandon", "skip"}
	workNames = []string{"delet", "deprovision", "teardown", "cleanup", "destroy", "uninstall", "finaliz", "remov"}
	// policyValues are the values of a deletion policy that keep the outside resources.
	policyValues = []string{"orphan", "retain", "abandon", "keep", "preserve"}
)

// maxOptOutDepth bounds how deep in the spec a switch is looked for.
const maxOptOutDepth = 3

// optOut is a spec field that opts the object out of its finalizer's outside work.
type optOut struct {
	path []string
	// value is the one that opts out (true, or a policy's enum value); now what the object
	// holds, "" when the field is not set.
	value       any
	now         string
	description string
}

func (s optOut) field() string { return "spec." + strings.Join(s.path, ".") }

// isKeepSwitch reports a boolean field whose name says it keeps the outside resources when the
// object is deleted.
func isKeepSwitch(key string) bool {
	return containsAny(strings.ToLower(key), keepWords) && containsAny(strings.ToLower(key), workNames)
}

// isDeletionPolicy reports an enum field whose name is a policy for the deletion
// (`deletionPolicy`, `onDeletePolicy`).
func isDeletionPolicy(key string) bool {
	k := strings.ToLower(key)
	return strings.Contains(k, "policy") && containsAny(k, workNames)
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// keepValue is the first value of a policy's enum that keeps the outside resources, as the
// schema spells it.
func keepValue(enum []apiextensionsv1.JSON) (string, bool) {
	for _, e := range enum {
		var v string
		if json.Unmarshal(e.Raw, &v) == nil && containsAny(strings.ToLower(v), policyValues) {
			return v, true
		}
	}
	return "", false
}

// optOuts finds the switches in an object's spec: boolean fields named as keep switches, from
// the CRD's schema (with their description, set or not) and from the object itself (a schema
// that preserves unknown fields declares none), and deletion policies whose schema enum has a
// value that keeps the outside resources (without an enum, the value that opts out is not
// known, and none is offered). Switches already set to opt out are not returned: the
// controller already lets go, or does not honour them, and setting them again does nothing.
func optOuts(spec map[string]any, schema *apiextensionsv1.JSONSchemaProps) []optOut {
	found := map[string]*optOut{}
	var fromSchema func(path []string, s *apiextensionsv1.JSONSchemaProps)
	fromSchema = func(path []string, s *apiextensionsv1.JSONSchemaProps) {
		if len(path) >= maxOptOutDepth {
			return
		}
		for k, p := range s.Properties {
			p := p
			sub := append(append([]string(nil), path...), k)
			switch {
			case p.Type == "boolean" && isKeepSwitch(k):
				found[strings.Join(sub, ".")] = &optOut{path: sub, value: true, description: p.Description}
			case p.Type == "string" && isDeletionPolicy(k):
				if v, ok := keepValue(p.Enum); ok {
					found[strings.Join(sub, ".")] = &optOut{path: sub, value: v, description: p.Description}
				}
			case p.Type == "object":
				fromSchema(sub, &p)
			}
		}
	}
	if schema != nil {
		fromSchema(nil, schema)
	}
	var fromObject func(path []string, m map[string]any)
	fromObject = func(path []string, m map[string]any) {
		for k, v := range m {
			sub := append(append([]string(nil), path...), k)
			key := strings.Join(sub, ".")
			switch t := v.(type) {
			case bool:
				if s, ok := found[key]; ok {
					s.now = boolWord(t)
				} else if isKeepSwitch(k) {
					found[key] = &optOut{path: sub, value: true, now: boolWord(t)}
				}
			case string:
				if s, ok := found[key]; ok {
					s.now = t
				}
			case map[string]any:
				if len(sub) < maxOptOutDepth {
					fromObject(sub, t)
				}
			}
		}
	}
	fromObject(nil, spec)
	var out []optOut
	for _, s := range found {
		if s.now != "" && (s.now == boolWord(true) && s.value == true || s.now == s.value) {
			continue
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].field() < out[j].field() })
	return out
}

func boolWord(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// specSchema is the schema of the spec of res's objects at version, nil when the CRD has none.
func specSchema(c *apiextensionsv1.CustomResourceDefinition, version string) *apiextensionsv1.JSONSchemaProps {
	if c == nil {
		return nil
	}
	for _, v := range c.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		if s, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]; ok {
			return &s
		}
	}
	return nil
}

// optOutPatch is the merge patch that sets the switch.
func optOutPatch(s optOut) string {
	var v any = s.value
	for i := len(s.path) - 1; i >= 0; i-- {
		v = map[string]any{s.path[i]: v}
	}
	b, _ := json.Marshal(map[string]any{"spec": v})
	return string(b)
}

// objectOptOuts reads the object's own switches: its spec as read in full and its CRD's schema
// of the version read. A CRD that cannot be read leaves only what the object holds.
func (x *Explainer) objectOptOuts(ctx context.Context, o subject, body *unstructured.Unstructured) []optOut {
	if body == nil || o.res.Group == "" {
		return nil
	}
	spec, _, _ := unstructured.NestedMap(body.Object, "spec")
	crd, _ := x.crdNamed(ctx, o.res.Resource+"."+o.res.Group)
	return optOuts(spec, specSchema(crd, o.res.Version))
}
