package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Bounds of the search for objects that refer to a stuck object.
const (
	// maxReferrerTypes bounds the resource types listed; more candidates make the answer
	// UNKNOWN for the rest, never "none".
	maxReferrerTypes = 40
	// maxReferrerItems bounds the objects read per type and scope.
	maxReferrerItems = 5000
	// referrerWorkers bounds the LISTs in flight.
	referrerWorkers = 4
)

// refType is a resource type that could refer to the stuck object, and why it is read.
type refType struct {
	res kinds.Resource
	why string
	// anyNamespace lists the type in every namespace for a namespaced target: its references
	// may carry a namespace field (`{name, namespace}`), and one in another namespace that names
	// the target's is a referrer too; a reference without one points into its own namespace.
	anyNamespace bool
}

// coreRefField is a reference field of a built-in type that no CRD schema describes: the
// built-in API is fixed, so the few fields that name objects of other types are listed here.
// kind "" means the field holds a typed reference ({apiGroup, kind, name}) to any kind.
type coreRefField struct {
	gk    schema.GroupKind
	field string
	kind  schema.GroupKind
}

var coreRefFields = []coreRefField{
	{schema.GroupKind{Kind: "PersistentVolumeClaim"}, "spec.dataSource, spec.dataSourceRef", schema.GroupKind{}},
	{schema.GroupKind{Kind: "PersistentVolumeClaim"}, "spec.storageClassName", schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}},
	{schema.GroupKind{Kind: "PersistentVolume"}, "spec.storageClassName", schema.GroupKind{Group: "storage.k8s.io", Kind: "StorageClass"}},
	{schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}, "spec.ingressClassName", schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"}},
	{schema.GroupKind{Group: "storage.k8s.io", Kind: "VolumeAttachment"}, "spec.source.persistentVolumeName", schema.GroupKind{Kind: "PersistentVolume"}},
	{schema.GroupKind{Kind: "Pod"}, "spec.runtimeClassName", schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"}},
	{schema.GroupKind{Kind: "Pod"}, "spec.priorityClassName", schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"}},
}

// neverRead are types whose bodies are never read to look for references: their data is
// secret, or their content is not a reference to anything.
var neverRead = map[schema.GroupResource]bool{
	{Resource: "secrets"}:                        true,
	{Resource: "configmaps"}:                     true,
	{Resource: "events"}:                         true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// referrerTypes derives from the cluster which types could refer to an object of res: every
// other listable type of its API group (not the core group's, which is not one product), the
// types whose CRD schema has a reference field that points to its kind (the field's name, its
// description or its fixed kind or group), and the built-in types whose reference fields can
// hold it. A failed CRD list is returned as a gap.
func (x *Explainer) referrerTypes(ctx context.Context, res kinds.Resource, t refTarget, finalizers []string) ([]refType, []report.Gap) {
	seen := map[schema.GroupResource]bool{}
	var out []refType
	add := func(r kinds.Resource, why string, anyNS bool) {
		gr := schema.GroupResource{Group: r.Group, Resource: r.Resource}
		if seen[gr] || neverRead[gr] || !r.Can("list") {
			return
		}
		seen[gr] = true
		out = append(out, refType{res: r, why: why, anyNamespace: anyNS && t.namespace != "" && r.Namespaced})
	}
	if res.Group != "" {
		for _, r := range x.catalog.Preferred() {
			if r.Group == res.Group {
				add(r, "same API group "+res.Group, true)
			}
		}
	}
	var gaps []report.Gap
	crds, err := x.crds(ctx)
	if err != nil {
		gaps = append(gaps, listGap(typeID(crdsResource, ""), "listing customresourcedefinitions.apiextensions.k8s.io for the types whose schema refers to "+res.Kind, err))
	}
	for i := range crds {
		crd := &crds[i]
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || !v.Served {
				continue
			}
			path, ok := schemaPointsTo(v.Schema.OpenAPIV3Schema, t)
			if !ok {
				continue
			}
			if r, found := x.catalog.ForGroupKind(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}); found {
				add(r, fmt.Sprintf("its CRD schema's %s refers to %s", path, res.Kind), true)
			}
			break
		}
	}
	// A product whose finalizer is on an object of another product's type keeps it while its
	// own objects refer to that object: its types whose schema does not declare their spec
	// could hold such a reference too (foreignref.go).
	for _, d := range foreignDomains(res, finalizers) {
		for i := range crds {
			crd := &crds[i]
			if c, _ := groupTie(d, crd.Spec.Group); c != ConfidenceHigh || !specUndeclared(crd) {
				continue
			}
			if r, found := x.catalog.ForGroupKind(schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}); found {
				add(r, "a type of the finalizer's domain "+d+" whose CRD schema does not declare its spec", true)
			}
		}
	}
	for _, f := range coreRefFields {
		if f.kind != res.GroupKind() && (f.kind.Kind != "" || t.namespace == "") {
			continue
		}
		if r, found := x.catalog.ForGroupKind(f.gk); found {
			add(r, "its built-in field "+f.field+" can refer to "+res.Kind, false)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].res.QualifiedName() < out[j].res.QualifiedName() })
	return out, gaps
}

// referrer is an object that refers to the stuck object, and where.
type referrer struct {
	res   kinds.Resource
	obj   *unstructured.Unstructured
	paths []string
}

// refRead is what a search for referrers read: the types (and why each) and how many objects.
type refRead struct {
	types   []refType
	objects int
}

// findReferrers lists every candidate type in the scope the reference can come from (the
// object's namespace for a namespaced object, every namespace for a cluster-scoped one) and
// returns the objects whose ownerReferences or spec refer to it, and what it read. Types that
// could not be read, or not read in full, are gaps: the answer for them is unknown, never "none".
func (x *Explainer) findReferrers(ctx context.Context, o subject) ([]referrer, refRead, []report.Gap) {
	t := refTarget{group: o.res.Group, kind: o.res.Kind, plural: o.res.Resource, namespace: o.obj.GetNamespace(), name: o.obj.GetName(), uid: o.obj.GetUID()}
	if !o.res.Namespaced {
		t.namespace = ""
	}
	types, gaps := x.referrerTypes(ctx, o.res, t, o.obj.GetFinalizers())
	if len(types) > maxReferrerTypes {
		var rest []string
		for _, rt := range types[maxReferrerTypes:] {
			rest = append(rest, rt.res.QualifiedName())
		}
		gaps = append(gaps, boundGap(report.OpList, o.ref().ID(), fmt.Sprintf("%d more types could refer to %s and were not read (bound of %d): %s", len(rest), o.ref().String(), maxReferrerTypes, strings.Join(rest, ", "))))
		types = types[:maxReferrerTypes]
	}
	var mu sync.Mutex
	var out []referrer
	read := refRead{types: types}
	work := make(chan refType)
	var wg sync.WaitGroup
	for w := 0; w < referrerWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rt := range work {
				found, n, gap := x.referrersOfType(ctx, rt, t)
				mu.Lock()
				out = append(out, found...)
				read.objects += n
				if gap != (report.Gap{}) {
					gaps = append(gaps, gap)
				}
				mu.Unlock()
			}
		}()
	}
	for _, rt := range types {
		work <- rt
	}
	close(work)
	wg.Wait()
	sort.Slice(out, func(i, j int) bool {
		return refFor(out[i].res, out[i].obj.GetNamespace(), out[i].obj.GetName()).String() < refFor(out[j].res, out[j].obj.GetNamespace(), out[j].obj.GetName()).String()
	})
	slices.SortFunc(gaps, func(a, b report.Gap) int { return strings.Compare(a.String(), b.String()) })
	return out, read, gaps
}

// referrersOfType reads one type in the reference's scope and matches each object; n is how
// many objects it read.
func (x *Explainer) referrersOfType(ctx context.Context, rt refType, t refTarget) (found []referrer, n int, gap report.Gap) {
	ns := ""
	if rt.res.Namespaced && !rt.anyNamespace {
		ns = t.namespace
	}
	items, truncated, err := x.listFull(ctx, rt.res, ns)
	what := rt.res.QualifiedName()
	if ns != "" {
		what += " in namespace " + ns
	}
	if err != nil {
		return nil, 0, listGap(typeID(rt.res, ns), fmt.Sprintf("listing %s (could refer to it: %s)", what, rt.why), err)
	}
	var out []referrer
	for i := range items {
		u := &items[i]
		if u.GetUID() == t.uid {
			continue
		}
		var paths []string
		for _, ref := range u.GetOwnerReferences() {
			if ref.UID == t.uid {
				paths = append(paths, "metadata.ownerReferences")
				break
			}
		}
		if spec, ok := u.Object["spec"]; ok {
			for _, m := range matchRefs(spec, "spec", t, u.GetNamespace()) {
				paths = append(paths, m.path)
			}
		}
		if len(paths) == 0 {
			if p := x.partOfReferrerPath(ctx, rt.res, u, t); p != "" {
				paths = append(paths, p)
			}
		}
		if len(paths) > 0 {
			out = append(out, referrer{res: rt.res, obj: u, paths: paths})
		}
	}
	if truncated {
		gap = boundGap(report.OpList, typeID(rt.res, ns), fmt.Sprintf("listing %s: only the first %d objects were read (bound), the rest could refer to it", what, maxReferrerItems))
	}
	return out, len(items), gap
}

// listFull lists the objects of r in ns ("" for all namespaces) in full, page by page, once per
// command, keeping at most maxReferrerItems; truncated is set when more exist.
func (x *Explainer) listFull(ctx context.Context, r kinds.Resource, ns string) ([]unstructured.Unstructured, bool, error) {
	type page struct {
		items     []unstructured.Unstructured
		truncated bool
	}
	p, err := cached(x, "full/"+r.QualifiedName()+"/"+ns, func() (page, error) {
		var out page
		opts := metav1.ListOptions{Limit: 500}
		for {
			var l *unstructured.UnstructuredList
			var err error
			if ns != "" {
				l, err = x.c.Dynamic.Resource(r.GVR()).Namespace(ns).List(ctx, opts)
			} else {
				l, err = x.c.Dynamic.Resource(r.GVR()).List(ctx, opts)
			}
			if err != nil {
				return out, err
			}
			for i := range l.Items {
				if len(out.items) >= maxReferrerItems {
					out.truncated = true
					return out, nil
				}
				l.Items[i].SetManagedFields(nil)
				out.items = append(out.items, l.Items[i])
			}
			if l.GetContinue() == "" {
				return out, nil
			}
			opts.Continue = l.GetContinue()
		}
	})
	return p.items, p.truncated, err
}
