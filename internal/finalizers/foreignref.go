package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// foreignDomains are the domains of the object's finalizers whose product's types are not the
// object's own: a product that puts its finalizer on an object of another type (a Secret, a
// ConfigMap, a Service, another product's resource) keeps it while its own objects refer to
// that object. Kubernetes' own domains are left out (their finalizers are the core's).
func foreignDomains(res kinds.Resource, finalizers []string) []string {
	var out []string
	for _, name := range finalizers {
		d := finalizerDomain(name)
		if d == "" || kubernetesOwnDomain(d) || slices.Contains(out, d) {
			continue
		}
		if c, _ := groupTie(d, res.Group); res.Group != "" && c == ConfidenceHigh {
			continue
		}
		out = append(out, d)
	}
	return out
}

// specUndeclared reports a CRD none of whose served versions declares what its spec holds (no
// schema, or one that keeps unknown fields at its top or under spec): such a type could hold a
// reference to anything.
func specUndeclared(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return true
		}
		s := v.Schema.OpenAPIV3Schema
		if preserves(s) && len(s.Properties) == 0 {
			return true
		}
		if spec, ok := s.Properties["spec"]; ok && preserves(&spec) && len(spec.Properties) == 0 {
			return true
		}
	}
	return false
}

func preserves(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// productRefTypes are the types of the finalizer's domain whose CRD schema has a spec field that
// points to the object's kind (schemaPointsTo), each with that field: the product's own objects
// that can refer to the stuck object.
func (x *Explainer) productRefTypes(ctx context.Context, domain string, t refTarget) ([]string, []string) {
	crds, err := x.crds(ctx)
	if err != nil {
		return nil, nil
	}
	var names, fields []string
	for i := range crds {
		crd := &crds[i]
		if c, _ := groupTie(domain, crd.Spec.Group); c != ConfidenceHigh {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || !v.Served {
				continue
			}
			if path, ok := schemaPointsTo(v.Schema.OpenAPIV3Schema, t); ok {
				names = append(names, crd.Spec.Names.Plural+"."+crd.Spec.Group)
				fields = append(fields, crd.Spec.Names.Kind+" "+strings.TrimPrefix(path, "."))
				break
			}
		}
	}
	return names, fields
}

// applyForeignUnreferenced puts first the removal by hand of a finalizer of a product on an
// object of a foreign type when none of the product's objects refers to the object any more. The
// finalizer's domain is the product's; the object's type is not one of its types (a Secret, a
// ConfigMap, a Service); the product's types have spec fields that point to objects of that kind
// (from their CRD schemas: `secretRef`, `secretName`); and the search for referrers read every
// candidate type, those of the product included, in full and found none. Such a product keeps
// the finalizer while something of its own refers to the object; its controller acts on events
// of its own types, so it may run and still never come back to this object. The strip says how
// "no referrer" was established (read N objects of K types). A type that could not be read
// leaves the finalizer alone (its search gave no evidence: refs is nil, and the finalizer is
// incomplete).
func (x *Explainer) applyForeignUnreferenced(ctx context.Context, o subject, e *Explanation) {
	if e.Deleting {
		return
	}
	t := refTarget{group: o.res.Group, kind: o.res.Kind, plural: o.res.Resource, namespace: o.obj.GetNamespace(), name: o.obj.GetName(), uid: o.obj.GetUID()}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.refs == nil || !removerRuns(*f) || len(f.Incomplete) > 0 || f.bypass == nil {
			continue
		}
		domains := foreignDomains(o.res, []string{f.Name})
		if len(domains) == 0 {
			continue
		}
		names, fields := x.productRefTypes(ctx, domains[0], t)
		if len(names) == 0 || !allRead(f.refs, names) {
			continue
		}
		line := fmt.Sprintf("no object of the product of %s refers to it (%s can): read %s of %s (%s), in every namespace for the product's own",
			domains[0], strings.Join(fields, ", "), count(f.refs.objects, "object"), count(len(f.refs.types), "type"), refTypeNames(f.refs.types))
		strip := *f.bypass
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: its product keeps it on %s while one of its own objects refers to it, and none does: %s. Its controller acts on the events of its own types, so it may run and still never come back to this object; with no referrer, nothing is left pointing at it. The patch removes only this entry, and the API server refuses it if the list changed since it was read.",
			f.Name, o.ref().String(), line)
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.LastResort || r.Code == ReasonStripFinalizer })
		f.Remedies = append([]Remediation{strip}, rest...)
		if f.Stalled != nil {
			f.Stalled.Evidence = append(f.Stalled.Evidence, line)
			f.Stalled.LikelyReasons = append([]string{"its product keeps the finalizer while one of its own objects refers to the object, and acts only on the events of its own types: nothing refers to it any more, and nothing brings its controller back to this object"}, f.Stalled.LikelyReasons...)
		}
	}
}

// allRead reports whether the search for referrers read every one of names (plural.group).
func allRead(refs *refRead, names []string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(refs.types, func(t refType) bool { return t.res.QualifiedName() == n }) {
			return false
		}
	}
	return true
}

// count is n things, "1 object", "3 objects".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
