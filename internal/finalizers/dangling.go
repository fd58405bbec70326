package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// maxDanglingLookups bounds the reads that resolve the stuck object's own references.
const maxDanglingLookups = 8

// maxDanglingDepth bounds how deep the object's spec is walked for references.
const maxDanglingDepth = 6

// outRef is one reference the stuck object's spec makes to another object: the field that
// holds it, and the object it names.
type outRef struct {
	path string
	res  kinds.Resource
	ns   string
	name string
	node bool
	// inferred is the evidence of a reference no field states (partOfReference), with its
	// confidence; "" for one the field's name or content states.
	inferred string
	// loose is the field's stem when the kind was matched only loosely: the group's one kind
	// ending in it (`cluster` of `clusterRef`, TemporalCluster); "" for an exact match.
	loose string
}

func (r outRef) ref() ObjectRef { return refFor(r.res, r.ns, r.name) }

// dangling is a reference of the stuck object that names an object that does not exist.
type dangling struct {
	ref    ObjectRef
	reason string
	// restorable: creating the object again (or repointing the field) lets the controller act.
	restorable bool
	path       string
	inferred   bool
	// owner marks a gone owner (metadata.ownerReferences), which holds the finalizer only
	// where its remover finalizes the object through that owner (ownerBlocks), or where the
	// object's spec names it too (inSpec, ownerSpecPath).
	owner  bool
	inSpec bool
	// context is what else the blocker's details say (an owner being deleted, which is why
	// the object is deleted and not what holds it).
	context []string
}

// applyDangling makes blockers of the objects the stuck object itself refers to that do not
// exist: its owners (ownerReferences), the node its spec places it on (`nodeName`, `node`),
// the objects its spec names by a field whose name, less a `Ref`/`Name` suffix, is a kind
// of the object's own API group (`policyServer: x`, `fooRef: {name: x}`), and the typed
// references that state their own kind and group, in any served group (typedReferences). A controller that
// finalizes the object through what it refers to never acts when that is gone: a per-node agent
// cannot run on a node that no longer exists; a controller that reconciles through the owner
// never comes back to the object; a cleanup against a referenced object that does not exist
// never completes. This is evidence at any age, and it outranks reading the remover's logs.
// A read that fails is a gap, never "missing".
func (x *Explainer) applyDangling(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	found, gaps := x.danglingRefs(ctx, o, w)
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		found := withoutPassingOwner(found, x.ownerBlocks(ctx, o, f.Controllers[0].Object))
		if len(found) == 0 {
			f.Incomplete = append(f.Incomplete, gaps...)
			continue
		}
		blockOnMissing(o, f, found, gaps)
	}
	// The strip's cost names what the object records outside the cluster.
	nameLeftovers(e, w.obj)
}

// danglingRefs resolves the object's owners and spec references with a read each (bounded,
// cached) and returns the ones that do not exist, with the reads that failed as gaps.
func (x *Explainer) danglingRefs(ctx context.Context, o subject, w ownWord) ([]dangling, []report.Gap) {
	var out []dangling
	var gaps []report.Gap
	if gone, why, gap := x.goneOwner(ctx, o); gap != (report.Gap{}) {
		gaps = append(gaps, gap)
	} else if gone != nil {
		out = append(out, dangling{ref: *gone, owner: true, reason: fmt.Sprintf("its owner (metadata.ownerReferences) %s: the controller that reconciles this object through its owner never comes back to it", why)})
	}
	spec, gap := x.refSpec(ctx, o, w)
	if gap != (report.Gap{}) {
		gaps = append(gaps, gap)
	}
	if spec == nil {
		return out, gaps
	}
	markOwnersInSpec(out, spec)
	byKind := x.referableKinds(o.res.Group)
	if reportedSuccess(w) {
		// It had what it names when it succeeded (a run whose template was deleted since):
		// that object's absence now is no evidence against its cleanup. Its node still is.
		byKind = nil
	}
	refs := specReferences(spec, byKind, o.obj.GetNamespace())
	refs = withLooseReferences(refs, spec, byKind, o.obj.GetNamespace())
	if byKind != nil {
		refs = withTypedReferences(refs, typedReferences(spec, forStatedKind(x.catalog), o.obj.GetNamespace()))
		refs = append(refs, x.runAsReferences(ctx, o, spec)...)
		refs = append(refs, labelReferences(o.obj.GetLabels(), x.catalog.Preferred(), o.res.Group, o.obj.GetNamespace())...)
		if reportsFailure(w) {
			unserved, ugaps := unservedReferences(spec, x.catalog, o.obj.GetNamespace())
			out, gaps = append(out, unserved...), append(gaps, ugaps...)
		}
	}
	// Its annotations' references (annotationReferences); a gone node counts whatever its
	// conditions say, as the spec's does.
	for _, r := range annotationReferences(o.obj.GetAnnotations(), x.catalog.Preferred(), o.res.Group, o.obj.GetNamespace()) {
		if byKind != nil || r.node {
			refs = append(refs, r)
		}
	}
	// The object a part belongs to is needed by its cleanup now, whatever the part had when it
	// succeeded: it is inferred whatever the object's conditions say.
	if w.obj != nil {
		if r, ok := x.partOfReference(ctx, o, w.obj, refs); ok {
			refs = append(refs, r)
		}
	}
	remote := x.remoteRefs(ctx, o, w)
	for i, r := range refs {
		ref := r.ref()
		if r.res.GroupKind() == o.res.GroupKind() && r.name == o.obj.GetName() && ref.Namespace == o.obj.GetNamespace() {
			continue
		}
		if _, ok := remote[r.path]; ok && r.loose == "" && r.inferred == "" {
			continue
		}
		if i >= maxDanglingLookups {
			gaps = append(gaps, boundGap(report.OpGet, o.ref().ID(), fmt.Sprintf("more objects named by the object's spec than are looked up (bound of %d): %s (%s) and on", maxDanglingLookups, ref.String(), r.path)))
			break
		}
		_, err := cached(x, "exists/"+ref.String(), func() (*metav1.PartialObjectMetadata, error) {
			return x.c.Metadata.Resource(r.res.GVR()).Namespace(ref.Namespace).Get(ctx, r.name, metav1.GetOptions{})
		})
		switch {
		case apierrors.IsNotFound(err) && r.loose != "":
			out = append(out, looseDangling(r, ref))
		case apierrors.IsNotFound(err) && r.node && strings.HasPrefix(r.path, "metadata.annotations["):
			out = append(out, annotatedNodeDangling(r, ref, o.obj.GetName()))
		case apierrors.IsNotFound(err):
			if r.inferred != "" {
				var more []report.Gap
				r, more = x.corroboratePartOf(ctx, o, r)
				gaps = append(gaps, more...)
			}
			out = append(out, danglingFor(r, ref))
		case err != nil:
			gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String()+", which the object's "+r.path+" names", err))
		}
	}
	return out, gaps
}

// danglingFor words why a missing object the spec names holds the finalizer.
func danglingFor(r outRef, ref ObjectRef) dangling {
	if r.node {
		return dangling{ref: ref, path: r.path, reason: fmt.Sprintf("%s names %s, which does not exist: a per-node agent (a DaemonSet's pod) that removes the finalizer after cleaning up on that node can never run there", r.path, ref.String())}
	}
	if r.inferred != "" {
		return dangling{ref: ref, path: r.path, restorable: true, inferred: true, reason: fmt.Sprintf("%s holds, by inference, the name of the %s this object is part of: %s, which does not exist, so the cleanup its controller runs within it never completes (%s)", r.path, r.res.Kind, ref.String(), r.inferred)}
	}
	if r.res.Group == "" && r.res.Resource == serviceAccountResource.Resource {
		return dangling{ref: ref, path: r.path, restorable: true, reason: fmt.Sprintf("%s names %s, which does not exist: the API server refuses a pod that runs as a missing ServiceAccount, so the work its controller runs for the object as that account (its cleanup included) never starts", r.path, ref.String())}
	}
	return dangling{ref: ref, path: r.path, restorable: true, reason: fmt.Sprintf("%s names %s, which does not exist: the cleanup its controller runs against the referenced %s never completes", r.path, ref.String(), r.res.Kind)}
}

// referableKinds maps the lower-cased kinds a spec field may name to their resources: the
// kinds served in the object's own API group (not the core group: a core object's Secret or
// ServiceAccount names are as often what a controller creates as what it needs).
func (x *Explainer) referableKinds(group string) map[string]kinds.Resource {
	out := map[string]kinds.Resource{}
	if group == "" {
		return out
	}
	for _, r := range x.catalog.Preferred() {
		if r.Group == group && !strings.Contains(r.Resource, "/") {
			out[strings.ToLower(r.Kind)] = r
		}
	}
	return out
}

// nodeResource is the core Node, which `nodeName`/`node` fields name.
var nodeResource = kinds.Resource{Version: "v1", Resource: "nodes", Kind: "Node"}

// specReferences walks spec (bounded) for string fields that name another object: `nodeName`
// or `node` (a core Node), and fields whose name less a `Ref`/`Name` suffix is one of byKind's
// kinds, holding a name or a `{name: …}` object. Namespaced kinds resolve in namespace (or in
// the reference's own `namespace`); a namespaced kind named from a cluster-scoped object
// without a namespace is skipped. The result is sorted by path.
func specReferences(spec map[string]any, byKind map[string]kinds.Resource, namespace string) []outRef {
	return walkReferences(spec, byKind, namespace, exactKind)
}

// exactKind resolves the base of a reference field to the kind of that very name.
func exactKind(base string, byKind map[string]kinds.Resource) (kinds.Resource, bool) {
	r, ok := byKind[base]
	return r, ok && base != ""
}

// walkReferences is specReferences with the base of a field resolved by kindOf.
func walkReferences(spec map[string]any, byKind map[string]kinds.Resource, namespace string, kindOf func(string, map[string]kinds.Resource) (kinds.Resource, bool)) []outRef {
	var out []outRef
	walkSpecFields(spec, func(key, path string, v any, listed bool) bool {
		if describesProcess(key) {
			return true // a process's own names, not references: not walked into
		}
		if listed {
			return false
		}
		r, ok := fieldReference(key, v, byKind, namespace, kindOf)
		if ok {
			r.path = path
			out = append(out, r)
		}
		return ok
	})
	sortByPath(out)
	return out
}

// walkSpecFields visits every field of spec (bounded by maxDanglingDepth) with its path, and
// every object in a list with the list's key, its indexed path and listed set; visit returns
// true when it took the value as a reference, which is then not walked into.
func walkSpecFields(spec map[string]any, visit func(key, path string, v any, listed bool) bool) {
	var walk func(m map[string]any, path string, depth int)
	walk = func(m map[string]any, path string, depth int) {
		if depth > maxDanglingDepth {
			return
		}
		for k, v := range m {
			p := path + "." + k
			if visit(k, p, v, false) {
				continue
			}
			switch t := v.(type) {
			case map[string]any:
				walk(t, p, depth+1)
			case []any:
				for i, e := range t {
					em, ok := e.(map[string]any)
					if !ok {
						continue
					}
					ep := fmt.Sprintf("%s[%d]", p, i)
					if !visit(k, ep, em, true) {
						walk(em, ep, depth+1)
					}
				}
			}
		}
	}
	walk(spec, "spec", 0)
}

// sortByPath orders references by the field that holds them.
func sortByPath(refs []outRef) {
	sort.Slice(refs, func(i, j int) bool { return refs[i].path < refs[j].path })
}

// fieldReference reads one field as a reference, false when it is none.
func fieldReference(key string, v any, byKind map[string]kinds.Resource, namespace string, kindOf func(string, map[string]kinds.Resource) (kinds.Resource, bool)) (outRef, bool) {
	lower := strings.ToLower(key)
	if s, ok := v.(string); ok && (lower == "nodename" || lower == "node") {
		if !validName(s) {
			return outRef{}, false
		}
		return outRef{res: nodeResource, name: s, node: true}, true
	}
	base := lower
	switch {
	case strings.HasSuffix(lower, "ref"):
		base = strings.TrimSuffix(lower, "ref")
	case strings.HasSuffix(lower, "name"):
		base = strings.TrimSuffix(lower, "name")
	}
	res, ok := kindOf(base, byKind)
	if !ok && base != lower {
		res, ok = qualifiedKind(key[:len(base)], byKind)
	}
	if !ok {
		return outRef{}, false
	}
	name, ns := "", namespace
	switch t := v.(type) {
	case string:
		name = t
	case map[string]any:
		n, _ := t["name"].(string)
		name = n
		if s, ok := t["namespace"].(string); ok && s != "" {
			ns = s
		}
		if k, ok := t["kind"].(string); ok && !strings.EqualFold(k, res.Kind) {
			return outRef{}, false
		}
	}
	if !validName(name) || (res.Namespaced && ns == "") {
		return outRef{}, false
	}
	if !res.Namespaced {
		ns = ""
	}
	return outRef{res: res, ns: ns, name: name}, true
}

// validName reports a string shaped like an object name (a DNS subdomain), so that free text
// in a field is never looked up.
func validName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (c == '-' || c == '.') && i > 0 && i < len(s)-1
		if !ok {
			return false
		}
	}
	return true
}

// successCondition names a condition type that, True, says the object's run finished well
// (Succeeded, Complete): what it named was consumed then. Ready and Available say only that a
// living object worked when last reconciled — its cleanup needs what it names now, and a
// condition written before that referent was deleted says nothing of it.
var successCondition = map[string]bool{"succeeded": true, "complete": true, "completed": true}

// reportedSuccess reports an object whose own conditions say its run succeeded.
func reportedSuccess(w ownWord) bool {
	return slices.ContainsFunc(w.conditions, func(c Condition) bool {
		return c.Status == "True" && successCondition[strings.ToLower(c.Type)]
	})
}
