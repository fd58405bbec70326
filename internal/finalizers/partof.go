package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
)

// minWholeKind is the shortest kind a compound kind's name is read as built on: shorter
// prefixes ("Job" of "JobSet" aside) say too little.
const minWholeKind = 4

// notANameValue are values shaped like object names that are settings, never names.
var notANameValue = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"none": true, "auto": true, "enabled": true, "disabled": true, "always": true, "never": true}

// wholeKind returns the kind of the object's own API group whose name the object's kind is
// built on, a whole and its part: `Postgres` for `PostgresUser`, `Kafka` for `KafkaTopic`. The
// rest of the name must start a new word (`PolicyServer` is built on `Policy`, `Policyset` is
// not), and the longest such kind wins. False when the group serves none.
func wholeKind(part kinds.Resource, byKind map[string]kinds.Resource) (kinds.Resource, bool) {
	var best kinds.Resource
	for _, r := range byKind {
		k := r.Kind
		if len(k) < minWholeKind || len(k) >= len(part.Kind) || !strings.HasPrefix(part.Kind, k) || !unicode.IsUpper(rune(part.Kind[len(k)])) {
			continue
		}
		if len(k) > len(best.Kind) {
			best = r
		}
	}
	return best, best.Kind != ""
}

// partOfReference infers the reference a stuck object makes to the object its kind says it is
// part of, when nothing names it outright: a `PostgresUser` whose `spec.database` holds the name
// of its `Postgres`. The evidence, and what keeps it from naming what is no reference:
//
//   - the object's kind is built on another kind of its API group (wholeKind), not the core
//     group, and the deletion is older than the stall grace period (the controller had its time);
//   - nothing else names an object of that kind: no owner reference, no field named for it
//     (those are the other rules' and say it outright);
//   - exactly one top-level spec field can hold that object's name: a string shaped like a name,
//     not a setting (`true`, `off`, a value starting with a digit: a size, a duration, a count),
//     not the object's own name, under a key that names no kind the server serves (`secretName`
//     names a Secret, `role` a Role), that the type's CRD schema, when it has one, declares as a
//     free string (no enum, no format), and whose value the object's own status does not record
//     as made (`status.postgresRole: username-6xq2kd` from `spec.role: username` is what the
//     controller created from it, not what it needs). Several such fields, or none, and nothing
//     is inferred: which one holds the name is then a guess.
//
// The confidence is low: it rests on the names of a kind and a field, not on the object
// saying what it refers to. It is said so with the blocker, and the remover's logs (which name
// what it fails on) come before a strip. A CRD list that fails leaves the schema unread; then
// nothing is inferred (the schema is what rules enumerations out), and the list's gap is the
// other rules' to report.
func (x *Explainer) partOfReference(ctx context.Context, o subject, obj *unstructured.Unstructured, found []outRef) (outRef, bool) {
	spec, _ := obj.Object["spec"].(map[string]any)
	requested := o.obj.GetDeletionTimestamp()
	if o.res.Group == "" || spec == nil || requested == nil || x.now.Sub(requested.Time) < stallAfter {
		return outRef{}, false
	}
	byKind := x.referableKinds(o.res.Group)
	whole, ok := wholeKind(o.res, byKind)
	if !ok || (whole.Namespaced && !o.res.Namespaced) {
		return outRef{}, false
	}
	if slices.ContainsFunc(o.obj.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return ownerOfKind(r, whole) }) ||
		slices.ContainsFunc(found, func(r outRef) bool { return r.res.GroupKind() == whole.GroupKind() }) ||
		slices.ContainsFunc(walkReferences(spec, byKind, o.obj.GetNamespace(), kindFor), func(r outRef) bool { return r.res.GroupKind() == whole.GroupKind() }) {
		return outRef{}, false
	}
	k, ok := x.wholeField(ctx, o.res, spec, obj.Object["status"], o.obj.GetName())
	if !ok {
		return outRef{}, false
	}
	ns := o.obj.GetNamespace()
	if !whole.Namespaced {
		ns = ""
	}
	return outRef{path: "spec." + k, res: whole, ns: ns, name: spec[k].(string), inferred: partOfEvidence(o.res.Kind, whole.Kind, k)}, true
}

// partOfEvidence words the evidence of an inferred part-of reference, with its confidence.
func partOfEvidence(part, whole, field string) string {
	return fmt.Sprintf("confidence low: the kind %s is built on %s of its group, no owner reference or field named for %s says which one it belongs to, and spec.%s is the one spec field that can hold a name", part, whole, whole, field)
}

// wholeField returns the one top-level spec field of an object of res that can hold the name of
// the whole it is part of (mayNameWhole), false when none or several can. A CRD list that fails
// leaves the schema unread: then nothing is inferred (the schema is what rules enumerations out),
// and the list's gap is the other rules' to report.
func (x *Explainer) wholeField(ctx context.Context, res kinds.Resource, spec map[string]any, status any, own string) (string, bool) {
	props, err := x.specSchema(ctx, res)
	if err != nil {
		return "", false
	}
	served := x.servedKinds()
	made := statusStrings(status, 0)
	var keys []string
	for k := range spec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var cands []string
	for _, k := range keys {
		if v, isString := spec[k].(string); isString && mayNameWhole(k, v, own, served, props, made) {
			cands = append(cands, k)
		}
	}
	if len(cands) != 1 {
		return "", false
	}
	return cands[0], true
}

// ownerOfKind reports an owner reference to an object of res's kind and group.
func ownerOfKind(r metav1.OwnerReference, res kinds.Resource) bool {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	return err == nil && gv.Group == res.Group && r.Kind == res.Kind
}

// mayNameWhole reports a top-level spec field that can hold the name of the object its kind is
// part of (partOfReference's field rule).
func mayNameWhole(key, value, own string, served map[string]bool, props map[string]apiextensionsv1.JSONSchemaProps, made []string) bool {
	if !validName(value) || value == own || notANameValue[value] || (value[0] >= '0' && value[0] <= '9') {
		return false
	}
	stem, _ := refStem(key)
	if base := strings.ToLower(stem); base == "" || base == "name" || served[base] || served[strings.TrimSuffix(base, "s")] {
		return false
	}
	if p, ok := props[key]; ok && (p.Type != "string" || len(p.Enum) > 0 || p.Format != "") {
		return false
	}
	return !slices.ContainsFunc(made, func(s string) bool { return s == value || strings.HasPrefix(s, value+"-") })
}

// servedKinds is every kind the server serves, lower-cased.
func (x *Explainer) servedKinds() map[string]bool {
	out := map[string]bool{}
	for _, r := range x.catalog.Preferred() {
		out[strings.ToLower(r.Kind)] = true
	}
	return out
}

// specSchema returns the properties of `spec` in the storage version's schema of res's CRD;
// none when the CRD has no structural schema for it.
func (x *Explainer) specSchema(ctx context.Context, res kinds.Resource) (map[string]apiextensionsv1.JSONSchemaProps, error) {
	crds, err := x.crds(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range crds {
		if c.Spec.Group != res.Group || c.Spec.Names.Kind != res.Kind {
			continue
		}
		for _, v := range c.Spec.Versions {
			if v.Name != storageVersion(c) || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			if spec, ok := v.Schema.OpenAPIV3Schema.Properties["spec"]; ok {
				return spec.Properties, nil
			}
		}
	}
	return nil, nil
}

// statusStrings collects the string values of a status (bounded in depth).
func statusStrings(v any, depth int) []string {
	if depth > maxDanglingDepth {
		return nil
	}
	switch t := v.(type) {
	case string:
		return []string{t}
	case map[string]any:
		var out []string
		for _, e := range t {
			out = append(out, statusStrings(e, depth+1)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, statusStrings(e, depth+1)...)
		}
		return out
	}
	return nil
}
