package finalizers

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubeforensics/suite/internal/kinds"
)

// maxNamedTypeValues bounds the spec values leftNamedType looks up, per finalizer.
const maxNamedTypeValues = 16

// leftNamedType adds to a generic strip's cost the object the finalizer's own name says its
// controller cleans up: a finalizer whose first label is the plural of a type the server serves
// (`oauthclients.finalizers.example.org`: OAuthClients) is there to delete an object of that
// type, and the stuck object's spec names which one (a string field whose value is the name of
// an existing object of that type, cluster-scoped or in the object's namespace). With the
// finalizer stripped, that object stays. Values are looked up by GET, metadata only, at most
// maxNamedTypeValues per finalizer; a failed GET is recorded as unchecked, never as "nothing
// left".
func (x *Explainer) leftNamedType(ctx context.Context, e *Explanation, o subject, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	spec, _ := obj.Object["spec"].(map[string]any)
	if len(spec) == 0 {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !hasGenericStrip(f.Remedies) {
			continue
		}
		types := typesNamedBy(x.catalog.Preferred(), f.Name, o.res)
		if len(types) == 0 {
			continue
		}
		values := specNames(spec, "spec")
		if len(values) > maxNamedTypeValues {
			values = values[:maxNamedTypeValues]
		}
		var left []string
		for _, r := range types {
			ns := ""
			if r.Namespaced {
				ns = o.obj.GetNamespace()
			}
			for _, v := range values {
				ref := refFor(r, ns, v.value)
				_, err := x.c.Metadata.Resource(r.GVR()).Namespace(ns).Get(ctx, v.value, metav1.GetOptions{})
				switch {
				case err == nil:
					left = append(left, ref.String()+" (named by "+v.path+")")
				case !apierrors.IsNotFound(err):
					f.Unchecked = append(f.Unchecked, getGap(ref.ID(), "reading "+ref.String()+", which "+f.Name+" may be there to delete", err))
				}
			}
		}
		if len(left) == 0 {
			continue
		}
		sort.Strings(left)
		what := fmt.Sprintf("the %s the finalizer's own name says its controller deletes, which the object names, stays with nothing to delete it: %s", types[0].Resource, strings.Join(left, ", "))
		for j := range f.Remedies {
			if r := &f.Remedies[j]; r.Code == ReasonStripFinalizer && strings.HasPrefix(r.Cost, "left behind: ") && !strings.Contains(r.Cost, what) {
				r.Cost = strings.TrimSuffix(r.Cost, ".") + "; " + what
			}
		}
	}
}

// typesNamedBy returns the served types whose plural is the finalizer's first label, when the
// finalizer has a domain after it; the stuck object's own type is left out.
func typesNamedBy(served []kinds.Resource, finalizer string, own kinds.Resource) []kinds.Resource {
	first, rest, ok := strings.Cut(finalizer, ".")
	if !ok || rest == "" || strings.Contains(first, "/") || len(first) < 4 {
		return nil
	}
	var out []kinds.Resource
	for _, r := range served {
		if r.Resource == first && !(r.Group == own.Group && r.Resource == own.Resource) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QualifiedName() < out[j].QualifiedName() })
	return out
}

// namedValue is a string of the spec that could be an object's name, with its path.
type namedValue struct{ path, value string }

// specNames returns the strings under v that are valid object names (DNS subdomains), with their
// dotted paths, sorted by path.
func specNames(v any, path string) []namedValue {
	var out []namedValue
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, specNames(t[k], path+"."+k)...)
		}
	case []any:
		for i, e := range t {
			out = append(out, specNames(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		if len(validation.IsDNS1123Subdomain(t)) == 0 {
			out = append(out, namedValue{path: path, value: t})
		}
	}
	return out
}
