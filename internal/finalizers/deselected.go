package finalizers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
)

// maxOwnerNames bounds the names tried for the owner a finalizer's path names.
const maxOwnerNames = 4

// deselectedOwner finds the custom resource a finalizer's path names (`ces-repro` → `repro`, of
// a type of the finalizer's own API groups) when that resource selects objects by label
// selectors in its spec and none of them matches the stuck object any more: its controller put
// the finalizer while the object matched, and no longer reconciles an object it does not select,
// so it never removes the finalizer (orphaned, although the product runs). It returns the owner
// and why; a failed read is returned as a gap, never as evidence.
func (x *Explainer) deselectedOwner(ctx context.Context, o subject, name string) (string, []report.Gap) {
	_, path, ok := strings.Cut(name, "/")
	domain := finalizerDomain(name)
	if !ok || path == "" || domain == "" {
		return "", nil
	}
	idx, err := x.products(ctx)
	if err != nil {
		return "", []report.Gap{listGap(objectID("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", ""), "reading the CRDs of "+domain+" to find the owner "+name+" names", err)}
	}
	own := map[string]bool{}
	for _, g := range idx.ownGroups(domain) {
		own[g] = true
	}
	if len(own) == 0 {
		return "", nil
	}
	crds, err := x.crds(ctx)
	if err != nil {
		return "", []report.Gap{listGap(objectID("apiextensions.k8s.io", "v1", "customresourcedefinitions", "", ""), "reading the CRDs of "+domain+" to find the owner "+name+" names", err)}
	}
	// The shared list is not sorted in place: other explanations read it at the same time.
	var mine []apiextensionsv1.CustomResourceDefinition
	for _, c := range crds {
		if own[c.Spec.Group] && maySelect(c, strings.ToLower(o.res.Kind)) {
			mine = append(mine, c)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].Name < mine[j].Name })
	var gaps []report.Gap
	for _, c := range mine {
		version := storageVersion(c)
		for _, n := range ownerNames(path) {
			gvr := crdGVR
			gvr.Group, gvr.Version, gvr.Resource = c.Spec.Group, version, c.Spec.Names.Plural
			ns := ""
			if c.Spec.Scope == apiextensionsv1.NamespaceScoped {
				if ns = o.obj.GetNamespace(); ns == "" {
					continue
				}
			}
			// Stuck objects that carry the same finalizer in one namespace name the same owner:
			// it is read once per command.
			u, err := cached(x, "deselected/"+gvr.String()+"/"+ns+"/"+n, func() (*unstructured.Unstructured, error) {
				return x.c.Dynamic.Resource(gvr).Namespace(ns).Get(ctx, n, metav1.GetOptions{})
			})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				gaps = append(gaps, getGap(objectID(c.Spec.Group, version, c.Spec.Names.Plural, o.obj.GetNamespace(), n), "reading "+c.Spec.Names.Plural+"."+c.Spec.Group+"/"+n+", which "+name+" may name", err))
				continue
			}
			sels, bad := specSelectors(u.Object["spec"], "spec", strings.ToLower(o.res.Kind))
			if len(sels) == 0 || bad {
				continue
			}
			set := labels.Set(o.obj.GetLabels())
			matched := false
			for _, s := range sels {
				matched = matched || s.sel.Matches(set)
			}
			if !matched {
				owner := c.Spec.Names.Plural + "." + c.Spec.Group + "/" + n
				return fmt.Sprintf("%s, which the finalizer's name names, no longer selects it: none of its selectors (%s) matches the object's labels, so its controller no longer acts on it", owner, selectorFields(sels)), gaps
			}
		}
	}
	return "", gaps
}

// ownerNames are the names a finalizer's path may give its owner: the path itself, then the
// path without each leading dash-separated word (`ces-repro` → `repro`).
func ownerNames(path string) []string {
	out := []string{path}
	for rest := path; len(out) < maxOwnerNames; {
		_, after, ok := strings.Cut(rest, "-")
		if !ok || after == "" {
			break
		}
		out, rest = append(out, after), after
	}
	return out
}

// maySelect reports whether objects of the CRD can hold, in their spec, a selector that
// specSelectors reads for objects of kind: its storage version's schema has such a field, or
// leaves room for one (no schema, unknown fields preserved, a map of free keys). A structural
// schema without one rules it out (the API server prunes fields it does not declare), so its
// objects are not read for it.
func maySelect(c apiextensionsv1.CustomResourceDefinition, kind string) bool {
	for _, v := range c.Spec.Versions {
		if v.Name != storageVersion(c) {
			continue
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return true
		}
		root := v.Schema.OpenAPIV3Schema
		spec, ok := root.Properties["spec"]
		if !ok {
			return (root.XPreserveUnknownFields != nil && *root.XPreserveUnknownFields) || root.AdditionalProperties != nil
		}
		return schemaMaySelect(&spec, kind)
	}
	return true
}

func schemaMaySelect(s *apiextensionsv1.JSONSchemaProps, kind string) bool {
	if (s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields) || s.AdditionalProperties != nil {
		return true
	}
	for k, p := range s.Properties {
		lk := strings.ToLower(k)
		if kind != "" && strings.Contains(lk, kind) && (strings.HasSuffix(lk, "selector") || strings.HasSuffix(lk, "selectors")) {
			return true
		}
		if schemaMaySelect(&p, kind) {
			return true
		}
	}
	return false
}

type fieldSelector struct {
	field string
	sel   labels.Selector
}

// specSelectors finds the label selectors in a spec for objects of one kind: fields whose name
// names the kind and ends in "selector" or "selectors" (`namespaceSelectors` for a Namespace),
// holding a LabelSelector or a list of them; a selector of other objects (a pod selector) says
// nothing of this one. bad is set when one cannot be read.
func specSelectors(v any, at, kind string) (out []fieldSelector, bad bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		field := at + "." + k
		lk := strings.ToLower(k)
		if kind != "" && strings.Contains(lk, kind) && (strings.HasSuffix(lk, "selector") || strings.HasSuffix(lk, "selectors")) {
			items, isList := m[k].([]any)
			if !isList {
				items = []any{m[k]}
			}
			for _, it := range items {
				im, ok := it.(map[string]any)
				if !ok || (im["matchLabels"] == nil && im["matchExpressions"] == nil) {
					continue
				}
				var ls metav1.LabelSelector
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(im, &ls); err != nil {
					return nil, true
				}
				s, err := metav1.LabelSelectorAsSelector(&ls)
				if err != nil {
					return nil, true
				}
				out = append(out, fieldSelector{field: field, sel: s})
			}
			continue
		}
		if sub, ok := m[k].(map[string]any); ok {
			more, b := specSelectors(sub, field, kind)
			if b {
				return nil, true
			}
			out = append(out, more...)
		}
	}
	return out, false
}

func selectorFields(sels []fieldSelector) string {
	parts := make([]string, 0, len(sels))
	for _, s := range sels {
		parts = append(parts, s.field+" "+s.sel.String())
	}
	return strings.Join(parts, "; ")
}

func storageVersion(c apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	if len(c.Spec.Versions) > 0 {
		return c.Spec.Versions[0].Name
	}
	return ""
}

// applyDeselected makes a finalizer whose remover runs orphaned when its named owner no longer
// selects the object (deselectedOwner): removing that one finalizer by hand is the way out, with
// its cost, not a bypass of a controller that will come back to it.
func (x *Explainer) applyDeselected(ctx context.Context, o subject, f *Finalizer, k known) {
	x.orphanWhen(ctx, o, f, k, "its controller runs but will not come back to it", x.deselectedOwner)
}

// orphanWhen makes a finalizer whose remover runs orphaned when test says why (markOrphaned);
// test's failed reads are kept as not checked.
func (x *Explainer) orphanWhen(ctx context.Context, o subject, f *Finalizer, k known, kind string, test func(context.Context, subject, string) (string, []report.Gap)) {
	if !removerRuns(*f) {
		return
	}
	why, gaps := test(ctx, o, f.Name)
	f.Unchecked = append(f.Unchecked, gaps...)
	if why == "" {
		return
	}
	x.markOrphaned(o, f, k, kind, why)
}

// markOrphaned makes f orphaned, its one step removing it by hand, saying which kind of orphan
// it is and why.
func (x *Explainer) markOrphaned(o subject, f *Finalizer, k known, kind, why string) {
	strip := x.stripStep(o, f.Name, k)
	strip.LastResort = false
	strip.Summary = fmt.Sprintf("Remove finalizer %s by hand (orphaned: %s): %s. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", f.Name, kind, why)
	f.Orphaned = true
	f.Remedies = []Remediation{strip}
}
