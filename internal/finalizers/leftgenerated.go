package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Bounds of leftGenerated: namespaces read per object, types looked up in each, GETs at once.
const (
	maxGeneratedNamespaces = 2
	maxGeneratedTypes      = 128
	generatedParallel      = 4
)

// generatedTarget is a namespace the object's spec names (spec.networkNamespace), with its path.
type generatedTarget struct{ namespace, path string }

// leftGenerated adds to every generic strip's cost the objects the controller generated for the
// stuck object in another namespace and would have deleted while finalizing it: an object named
// like the stuck object, in a namespace a top-level spec field whose name ends in `Namespace`
// names (`spec.networkNamespace`: the namespace an operator renders the object's counterpart
// into, as a network operator renders a NetworkAttachmentDefinition of the network's name), not
// the object's own. Cross-namespace objects cannot carry an owner reference to it, so its
// controller finds them by name; with the finalizer stripped, they stay. Each namespaced type the
// server serves (events and the object's own type left out) is looked up by that name, metadata
// only, at most maxGeneratedTypes per namespace; a failed GET is recorded as unchecked, never as
// "nothing left".
func (x *Explainer) leftGenerated(ctx context.Context, e *Explanation, o subject, obj *unstructured.Unstructured) {
	if obj == nil || !slices.ContainsFunc(e.Finalizers, func(f Finalizer) bool { return hasGenericStrip(f.Remedies) }) {
		return
	}
	targets := generatedTargets(obj)
	if len(targets) == 0 {
		return
	}
	types := generatedTypes(x.catalog.Preferred(), o.res)
	for _, t := range targets {
		left, gaps := x.generatedIn(ctx, types, t.namespace, obj.GetName())
		for i := range e.Finalizers {
			if hasGenericStrip(e.Finalizers[i].Remedies) {
				e.Finalizers[i].Unchecked = append(e.Finalizers[i].Unchecked, gaps...)
			}
		}
		if len(left) == 0 {
			continue
		}
		what := fmt.Sprintf("what its controller generated for it in namespaces/%s, which the object's %s names, named like it, and would have deleted, stays: %s", t.namespace, t.path, strings.Join(left, ", "))
		for i := range e.Finalizers {
			for j := range e.Finalizers[i].Remedies {
				if r := &e.Finalizers[i].Remedies[j]; r.Code == ReasonStripFinalizer && strings.HasPrefix(r.Cost, "left behind: ") && !strings.Contains(r.Cost, what) {
					r.Cost = strings.TrimSuffix(r.Cost, ".") + "; " + what
				}
			}
		}
	}
}

// generatedTargets are the namespaces the object's top-level spec fields named `…Namespace` hold,
// other than its own, sorted by path and bounded.
func generatedTargets(obj *unstructured.Unstructured) []generatedTarget {
	spec, _ := obj.Object["spec"].(map[string]any)
	var out []generatedTarget
	seen := map[string]bool{}
	keys := make([]string, 0, len(spec))
	for k := range spec {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s, ok := spec[k].(string)
		if !ok || !strings.HasSuffix(k, "Namespace") || !validName(s) || strings.Contains(s, ".") || s == obj.GetNamespace() || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, generatedTarget{namespace: s, path: "spec." + k})
		if len(out) == maxGeneratedNamespaces {
			break
		}
	}
	return out
}

// generatedTypes are the namespaced types a generated object may be of: every one the server
// serves that can be read by name, but events (a record, not a thing made) and the stuck object's
// own type (an object of the same type elsewhere is a sibling, not its counterpart).
func generatedTypes(all []kinds.Resource, own kinds.Resource) []kinds.Resource {
	var out []kinds.Resource
	for _, r := range all {
		if !r.Namespaced || !r.Can("get") || r.Resource == "events" || (r.Group == own.Group && r.Resource == own.Resource) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// generatedIn looks name up in namespace among types, metadata only, a few at a time, and
// returns the objects found, sorted, and a gap per failed GET (one for the types beyond the
// bound).
func (x *Explainer) generatedIn(ctx context.Context, types []kinds.Resource, namespace, name string) ([]string, []report.Gap) {
	var gaps []report.Gap
	if len(types) > maxGeneratedTypes {
		gaps = append(gaps, boundGap(report.OpGet, objectID("", "v1", "namespaces", "", namespace), fmt.Sprintf("objects named %s in namespaces/%s of more types than are looked up (bound of %d): %d types not checked", name, namespace, maxGeneratedTypes, len(types)-maxGeneratedTypes)))
		types = types[:maxGeneratedTypes]
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var found []string
	pool := newWorkPool(generatedParallel, &wg)
	for _, r := range types {
		pool.submit(func() {
			_, err := x.c.Metadata.Resource(r.GVR()).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
			ref := refFor(r, namespace, name)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				found = append(found, ref.String())
			case !apierrors.IsNotFound(err):
				gaps = append(gaps, getGap(ref.ID(), "reading "+ref.String()+", which may be what the stuck object's controller generated for it", err))
			}
		})
	}
	wg.Wait()
	sort.Strings(found)
	sort.SliceStable(gaps, func(i, j int) bool { return gaps[i].What < gaps[j].What })
	return found, gaps
}
