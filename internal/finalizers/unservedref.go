package finalizers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// unservedReferences walks spec (bounded) for references that state their own type — a
// reference-shaped field (`…Ref`, `…Refs`, `target`) holding `kind`, `name` and its API group
// (`apiVersion`, or `group`/`apiGroup`) — of a type the API server does not serve: the referent
// cannot exist, so a cleanup that needs it never completes (a role whose `clusterRef` names a
// `Cluster` of a group whose CRD was removed with its operator). A group whose discovery failed
// is a gap, never "not served"; the core group and references without a group are left out
// (what they name is resolved elsewhere, or not at all). It is read only for an object whose
// own conditions report a failure (reportsFailure): a controller may resolve a reference to an
// optional provider's type some other way, and one that works says nothing is missing.
func unservedReferences(spec map[string]any, catalog *kinds.Catalog, namespace string) ([]dangling, []report.Gap) {
	var out []dangling
	var gaps []report.Gap
	walkSpecFields(spec, func(key, path string, v any, _ bool) bool {
		m, isMap := v.(map[string]any)
		if !isMap || !referenceField(strings.ToLower(key)) {
			return false
		}
		gk, name, ok := statedType(m)
		if !ok || gk.Group == "" {
			return false
		}
		ns := namespace
		if s, ok := m["namespace"].(string); ok && s != "" {
			ns = s
		}
		ref := ObjectRef{Group: gk.Group, Kind: gk.Kind, Resource: gk.Kind, Namespace: ns, Name: name}
		if f, failed := groupFailure(catalog, gk.Group); failed {
			gaps = append(gaps, report.Gap{Op: report.OpCheck, Subject: ref.ID(), Reason: cluster.GapReason(f.Err), Error: f.Error,
				What: fmt.Sprintf("whether the server serves %s of %s, which %s names: its discovery failed", gk.Kind, gk.Group, path)})
			return true
		}
		if _, ok := forStatedKind(catalog)(gk); ok {
			return false
		}
		out = append(out, dangling{ref: ref, path: path, reason: fmt.Sprintf("%s names %s %s of %s, a type the API server does not serve (its CustomResourceDefinition is gone, or never was here): that object cannot exist, and the cleanup its controller runs against it never completes", path, gk.Kind, name, gk.Group)})
		return true
	})
	return out, gaps
}

// groupFailure is the failed discovery of a version of group, if any (an unchecked check is no
// failure of that group).
func groupFailure(catalog *kinds.Catalog, group string) (kinds.GroupFailure, bool) {
	for _, f := range catalog.Failed {
		gv, err := schema.ParseGroupVersion(f.GroupVersion)
		if err == nil && gv.Group == group && !f.Unchecked {
			return f, true
		}
	}
	return kinds.GroupFailure{}, false
}

// referenceField reports a field (lower-cased) shaped like a reference to another object: a
// `…ref`/`…refs` field, or `target`/`targets`.
func referenceField(lower string) bool {
	return lower == "target" || lower == "targets" || (len(lower) > 3 && (strings.HasSuffix(lower, "ref") || strings.HasSuffix(lower, "refs")))
}

// statedType reads the type and name a reference object states: its kind, and its group from
// `apiVersion` or else `apiGroup`/`group`; false when it states no kind, no valid name or no
// group at all.
func statedType(m map[string]any) (schema.GroupKind, string, bool) {
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	if kind == "" || !validName(name) {
		return schema.GroupKind{}, "", false
	}
	if av, ok := m["apiVersion"].(string); ok && av != "" {
		gv, err := schema.ParseGroupVersion(av)
		if err != nil {
			return schema.GroupKind{}, "", false
		}
		return schema.GroupKind{Group: gv.Group, Kind: kind}, name, true
	}
	for _, key := range []string{"apiGroup", "group"} {
		if g, ok := m[key].(string); ok {
			return schema.GroupKind{Group: g, Kind: kind}, name, true
		}
	}
	return schema.GroupKind{}, "", false
}

// reportsFailure reports an object whose own conditions say something failed: a condition
// False with a reason or message (Ready, Synced: ClusterRefInvalid), or one whose type names an
// error or failure True (ReconcileError).
func reportsFailure(w ownWord) bool {
	for _, c := range w.conditions {
		t := strings.ToLower(c.Type)
		if c.Status == "False" && (c.Reason != "" || c.Message != "") {
			return true
		}
		if c.Status == "True" && (strings.Contains(t, "error") || strings.Contains(t, "fail")) {
			return true
		}
	}
	return false
}
