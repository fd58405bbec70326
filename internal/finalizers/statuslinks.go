package finalizers

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// maxLinkDepth bounds how deep the status is walked for lists of what links to the object.
const maxLinkDepth = 4

// linkVerbs are the words before "by" in a status field that lists the objects still linked
// to this one (`linked_by_policies`, `usedBy`, `referencedBy`, `consumedBy`): a controller that
// keeps such a list waits, before it lets the object go, until the list's objects are gone.
// `ownedBy`, `createdBy` or `managedBy` name where the object comes from, never what waits on it.
var linkVerbs = map[string]bool{"linked": true, "used": true, "referenced": true, "consumed": true, "bound": true,
	"attached": true, "required": true, "claimed": true, "mounted": true, "targeted": true, "depended": true}

// fieldWords splits a field name into lower-case words at underscores, dashes and case changes
// (`linked_by_policies`, `usedBy` → used, by).
var fieldWordRe = regexp.MustCompile(`[A-Z]?[a-z0-9]+|[A-Z]+`)

func fieldWords(field string) []string {
	var out []string
	for _, w := range fieldWordRe.FindAllString(field, -1) {
		out = append(out, strings.ToLower(w))
	}
	return out
}

// linkField reports whether field names a list of the objects linked to this one, and the
// words after "by" (`policies` of linked_by_policies; "" for usedBy).
func linkField(field string) (string, bool) {
	words := fieldWords(field)
	for i := 1; i < len(words); i++ {
		if words[i] == "by" && linkVerbs[words[i-1]] {
			return strings.Join(words[i+1:], ""), true
		}
	}
	return "", false
}

// singulars are the singular forms a lower-case plural may have, the likelier first:
// `policies` → policy, `classes` → class, `apps` → app. After s, x, z, ch or sh an -es plural
// drops -es, and a word ending in e (`licenses`, `caches`) only its -s: both are returned
// (`statuses` → status, statuse; `caches` → cach, cache). A word without a plural ending is
// returned as it is.
func singulars(s string) []string {
	switch {
	case strings.HasSuffix(s, "ies"):
		return []string{strings.TrimSuffix(s, "ies") + "y"}
	case strings.HasSuffix(s, "sses"):
		return []string{strings.TrimSuffix(s, "es")}
	case strings.HasSuffix(s, "ses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "zes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return []string{strings.TrimSuffix(s, "es"), strings.TrimSuffix(s, "s")}
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss"):
		return []string{strings.TrimSuffix(s, "s")}
	}
	return []string{s}
}

// linkEntry is one object a status list names.
type linkEntry struct {
	kind, namespace, name, source string
}

// statusLinkEntries walks the object's status for lists of linked objects (linkField) and
// returns their entries: {name, namespace?, kind?} objects or `namespace/name` strings, with the
// kind the entry states or the one the field's words name.
func statusLinkEntries(status map[string]any) []linkEntry {
	var out []linkEntry
	var walk func(m map[string]any, path string, depth int)
	walk = func(m map[string]any, path string, depth int) {
		keys := slices.Sorted(maps.Keys(m))
		for _, k := range keys {
			p := path + "." + k
			if stem, ok := linkField(k); ok {
				items, _ := m[k].([]any)
				for _, it := range items {
					if e, ok := linkEntryOf(it, stem); ok {
						e.source = p
						out = append(out, e)
					}
				}
				continue
			}
			if sub, ok := m[k].(map[string]any); ok && depth < maxLinkDepth {
				walk(sub, p, depth+1)
			}
		}
	}
	walk(status, "status", 0)
	return out
}

func linkEntryOf(it any, stem string) (linkEntry, bool) {
	switch v := it.(type) {
	case string:
		ns, name, ok := strings.Cut(v, "/")
		if !ok {
			ns, name = "", v
		}
		return linkEntry{kind: stem, namespace: ns, name: name}, name != "" && !strings.Contains(name, "/")
	case map[string]any:
		name, _ := v["name"].(string)
		ns, _ := v["namespace"].(string)
		kind := stem
		if k, ok := v["kind"].(string); ok && k != "" {
			kind = k
		}
		return linkEntry{kind: kind, namespace: ns, name: name}, name != ""
	}
	return linkEntry{}, false
}

// linkedKind resolves an entry's kind: a kind the entry states, served in the object's group or
// by one group only; else the object's group's one kind whose name ends in the field's words,
// made singular (`policies` → SecurityPolicy). With none or two, nothing.
func (x *Explainer) linkedKind(group, word string) (kinds.Resource, bool) {
	if word == "" {
		return kinds.Resource{}, false
	}
	if r, ok := x.kindResource(group, word); ok && strings.EqualFold(r.Kind, word) {
		return r, true
	}
	var found []kinds.Resource
	for _, stem := range singulars(strings.ToLower(word)) {
		if len(stem) < minStem {
			continue
		}
		for _, r := range x.catalog.Preferred() {
			if r.Group == group && strings.HasSuffix(strings.ToLower(r.Kind), stem) && !slices.ContainsFunc(found, func(f kinds.Resource) bool { return f.GroupKind() == r.GroupKind() }) {
				found = append(found, r)
			}
		}
	}
	if len(found) != 1 {
		return kinds.Resource{}, false
	}
	return found[0], true
}

// statusLinks returns the objects the stuck object's own status lists as still linked to it
// (statusLinkEntries) that exist: what its controller waits for before it lets the object go.
// Names whose kind cannot be told are skipped; a read that fails is a gap.
func (x *Explainer) statusLinks(ctx context.Context, o subject, w ownWord) ([]namedObject, []report.Gap) {
	if w.obj == nil {
		return nil, nil
	}
	status, _ := w.obj.Object["status"].(map[string]any)
	if status == nil {
		return nil, nil
	}
	var lookups []namedLookup
	for _, e := range statusLinkEntries(status) {
		res, ok := x.linkedKind(o.res.Group, e.kind)
		if !ok {
			continue
		}
		ns := e.namespace
		if ns == "" && res.Namespaced {
			ns = o.obj.GetNamespace()
		}
		if !res.Namespaced {
			ns = ""
		}
		lookups = append(lookups, namedLookup{res: res, ns: ns, name: e.name, word: res.Kind, source: e.source})
	}
	many := func(l namedLookup) string { return "objects in the object's own " + l.source }
	return x.lookUpNamed(ctx, lookups, many, "listed by")
}
