package finalizers

import (
	"context"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A sweep reads every type once; what it then explains, it explains concurrently and only for
// the objects that are Terminating. This file holds the pieces that make that so: a sweep's
// scan shared with the explanations that need a namespace's content, explanations memoised per
// object and depth, and a bounded pool that explains many objects at once in a fixed order.

// sweepWorkers bounds the objects explained at once by one pool.
const sweepWorkers = 8

// Item is one object a sweep found, to be explained.
type Item struct {
	Resource kinds.Resource
	Object   metav1.Object
}

// ExplainItems explains every item, at most sweepWorkers at a time, and returns the
// explanations in the order of items. Reads the explanations share (RBAC, workloads, a
// namespace's events, a CRD) are made once (cached).
func (x *Explainer) ExplainItems(ctx context.Context, items []Item) []*Explanation {
	out := make([]*Explanation, len(items))
	sem := make(chan struct{}, sweepWorkers)
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = x.ExplainObject(ctx, it.Resource, it.Object)
		}()
	}
	wg.Wait()
	return out
}

// AdoptScan makes s, a sweep the caller made of namespace ("" for the whole cluster), the
// Explainer's scan of that scope, so that explaining a namespace's content does not list every
// type again. Its requests are then counted by ListRequests.
func (x *Explainer) AdoptScan(namespace string, s *Scan) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.cache["scan/"+namespace] = cacheEntry[*Scan]{v: s}
}

// derivedScan returns the scan of namespace cut out of an adopted cluster-wide scan, or nil
// when there is none. A type the cluster-wide sweep could not list is listed again in the
// namespace alone (a role may allow one namespace and not the cluster), so the derived scan
// fails only where a namespace sweep would.
func (x *Explainer) derivedScan(ctx context.Context, namespace string) *Scan {
	if namespace == "" {
		return nil
	}
	x.mu.Lock()
	v, ok := x.cache["scan/"]
	x.mu.Unlock()
	all, _ := v.(cacheEntry[*Scan])
	if !ok || all.v == nil {
		return nil
	}
	failed := map[string]bool{}
	for _, f := range all.v.Failed {
		failed[f.Resource] = true
	}
	s := &Scan{}
	var relist []kinds.Resource
	for _, t := range all.v.Types {
		if !t.Resource.Namespaced {
			continue
		}
		if failed[t.Resource.QualifiedName()] {
			relist = append(relist, t.Resource)
			continue
		}
		mine := TypeObjects{Resource: t.Resource}
		for _, it := range t.Items {
			if it.Namespace == namespace {
				mine.Items = append(mine.Items, it)
			}
		}
		s.Types = append(s.Types, mine)
	}
	if len(relist) > 0 {
		again := Sweep(ctx, x.c, kinds.NewCatalog(relist, nil), ScanOptions{Namespace: namespace})
		s.Types = append(s.Types, again.Types...)
		s.Failed, s.Requests = again.Failed, again.Requests
	}
	return s
}

// prefetchHeld explains, concurrently, the Terminating objects of types that addContent will
// explain one type at a time, so that it finds them explained (explanations are memoised).
func (x *Explainer) prefetchHeld(ctx context.Context, types []TypeObjects, ordered bool, depth int) {
	if depth > maxDepth {
		return
	}
	var items []Item
	for _, t := range types {
		if ordered && !isPods(t.Resource) {
			continue
		}
		for i := range t.Items {
			it := &t.Items[i]
			if len(it.Finalizers) > 0 && it.DeletionTimestamp != nil {
				items = append(items, Item{Resource: t.Resource, Object: it})
			}
		}
	}
	if len(items) < 2 {
		return
	}
	sem := make(chan struct{}, sweepWorkers)
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			x.explain(ctx, it.Resource, it.Object, depth)
		}()
	}
	wg.Wait()
}

// explain explains obj at depth once per command: the same object met again at the same depth
// (a pod that holds two claims, a held object a sweep and its namespace both explain) shares
// the first explanation.
func (x *Explainer) explain(ctx context.Context, res kinds.Resource, obj metav1.Object, depth int) *Explanation {
	key := "explain/" + strconv.Itoa(depth) + "/" + refFor(res, obj.GetNamespace(), obj.GetName()).String() + "/" + string(obj.GetUID())
	e, _ := cached(x, key, func() (*Explanation, error) {
		return x.explainOnce(ctx, res, obj, depth), nil
	})
	return e
}
