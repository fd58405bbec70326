package finalizers

import (
	"context"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

// SweepAndExplain lists every listable type of the scope once, like ScanScope (namespace ""
// is the whole cluster), and explains each Terminating object as soon as its type's LIST has
// read it, at most sweepWorkers at a time, while the other types are still being listed. The
// sweep becomes the Explainer's scan of the scope: an explanation that needs a namespace's
// content (the namespace's own, a foreground deletion's dependents) waits for it and cuts its
// namespace out of it, instead of listing every type again. The explanations come back in no
// particular order; callers sort them.
func (x *Explainer) SweepAndExplain(ctx context.Context, scope string) (*Scan, []*Explanation) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var out []*Explanation
	explains, gets := newWorkPool(sweepWorkers, &wg), newWorkPool(sweepWorkers, &wg)
	var namespaces []Item
	var shared sync.Once
	// stuck starts the explanation of a Terminating object; it is apart from keep, which runs
	// for every object listed, so that only these few copies of their resource go to the heap.
	stuck := func(r kinds.Resource, m *metav1.PartialObjectMetadata) {
		// Something is stuck: the cluster-wide reads its explanations share start now, beside
		// the LISTs still under way, rather than when the first explanation needs them.
		shared.Do(func() { x.prefetchShared(ctx, &wg) })
		// The sweep drops managedFields from what it keeps: they are not copied either.
		m.ManagedFields = nil
		obj := m.DeepCopy()
		if r.Group == "" && r.Resource == "namespaces" {
			// A namespace's content is explained once the objects above are: it reuses them.
			// Its own full read starts now.
			mu.Lock()
			namespaces = append(namespaces, Item{Resource: r, Object: obj})
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = x.namespaceAsListed(ctx, obj)
			}()
			return
		}
		if readsStatus(subject{res: r}) {
			x.prefetchFull(ctx, r, obj, gets)
		}
		// The LIST goes on at once: an explanation may wait for the sweep to finish.
		explains.submit(func() {
			e := x.ExplainObject(ctx, r, obj)
			mu.Lock()
			out = append(out, e)
			mu.Unlock()
		})
	}
	keep := func(r kinds.Resource, m *metav1.PartialObjectMetadata) bool {
		if m.DeletionTimestamp != nil {
			stuck(r, m)
		}
		return true
	}
	opts := ScanOptions{Namespace: scope, Keep: keep, Shared: func(r kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool) {
		return x.sharedList(ctx, r)
	}}
	if scope == "" {
		opts.Listed = x.sweepNamespaces()
	}
	s, _ := cached(x, "scan/"+scope, func() (*Scan, error) {
		return Sweep(ctx, x.c, x.catalog, opts), nil
	})
	x.sweptDone()
	wg.Wait()
	return s, append(out, x.ExplainItems(ctx, namespaces)...)
}

// fullRead is the answer to a full read of one object.
type fullRead struct {
	obj *unstructured.Unstructured
	err error
}

// fullKey names one version of one object, for prefetched.
func fullKey(r kinds.Resource, obj metav1.Object) string {
	return r.GVR().String() + "/" + obj.GetNamespace() + "/" + obj.GetName() + "/" + string(obj.GetUID()) + "/" + obj.GetResourceVersion()
}

// prefetchFull starts the full read of a Terminating object as soon as the sweep meets it, in
// the pool gets (a few at a time): its explanation, which may first wait for a place in its
// own pool and for the shared reads, then finds it made or under way (fullObject) rather than
// reading after them, when the sweep may be over.
func (x *Explainer) prefetchFull(ctx context.Context, r kinds.Resource, obj metav1.Object, gets *workPool) {
	pending := make(chan fullRead, 1)
	if _, loaded := x.prefetched.LoadOrStore(fullKey(r, obj), pending); loaded {
		return
	}
	gets.submit(func() {
		full, err := x.readFull(ctx, r, obj)
		pending <- fullRead{obj: full, err: err}
	})
}

// prefetchShared starts, each in its own goroutine counted in wg, the cluster-wide reads that
// explanations share: RBAC, workloads, admission webhooks, APIServices, CRDs (in full for the
// products they belong to, and their metadata for who installed each type). They are cached:
// an explanation that needs one waits for it, and a read that failed is its gap as before.
func (x *Explainer) prefetchShared(ctx context.Context, wg *sync.WaitGroup) {
	x.mu.Lock()
	x.sharedRead = true
	x.mu.Unlock()
	reads := []func(){
		func() { _, _ = x.rbac(ctx) },
		func() { _, _ = x.workloads(ctx) },
		func() { _, _ = x.failClosedWebhooks(ctx) },
		func() { _, _ = x.apiServices(ctx) },
		func() { _, _ = x.products(ctx) },
		func() { _, _ = x.crdsMetadata(ctx) },
	}
	wg.Add(len(reads))
	for _, read := range reads {
		go func() {
			defer wg.Done()
			read()
		}()
	}
}

// settled returns the value stored under key once any fill under way has finished, without
// filling it itself.
func (x *Explainer) settled(key string) (any, bool) {
	x.mu.Lock()
	wait, filling := x.filling[key]
	x.mu.Unlock()
	if filling {
		<-wait
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	v, ok := x.cache[key]
	return v, ok
}

// derivedScan returns the scan of namespace cut out of the cluster-wide sweep of this command
// (SweepAndExplain with -A), waiting for it to finish, or nil when there is none. A type the cluster-wide sweep could not list is listed again in the
// namespace alone (a role may allow one namespace and not the cluster), so the derived scan
// fails only where a namespace sweep would.
func (x *Explainer) derivedScan(ctx context.Context, namespace string) *Scan {
	if namespace == "" {
		return nil
	}
	v, ok := x.settled("scan/")
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
		s.Types = append(s.Types, TypeObjects{Resource: t.Resource, Items: inNamespace(t.Items, namespace)})
	}
	if len(relist) > 0 {
		again := Sweep(ctx, x.c, kinds.NewCatalog(relist, nil), ScanOptions{Namespace: namespace})
		s.Types = append(s.Types, again.Types...)
		s.Failed, s.Requests = again.Failed, again.Requests
	}
	return s
}

// inNamespace returns the items in namespace, nil when there are none. A LIST returns a type's
// objects in storage key order, one namespace after another: their run is shared (capacity
// cut, so that nothing appended to it reaches the next), not copied; items in any other order
// are copied.
func inNamespace(items []metav1.PartialObjectMetadata, namespace string) []metav1.PartialObjectMetadata {
	lo, hi, n := -1, 0, 0
	for i := range items {
		if items[i].Namespace == namespace {
			if lo < 0 {
				lo = i
			}
			hi, n = i+1, n+1
		}
	}
	switch {
	case n == 0:
		return nil
	case hi-lo == n:
		return items[lo:hi:hi]
	}
	out := make([]metav1.PartialObjectMetadata, 0, n)
	for i := lo; i < hi; i++ {
		if items[i].Namespace == namespace {
			out = append(out, items[i])
		}
	}
	return out
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
// (a pod that holds two claims) shares the first explanation, and one met deeper than an
// explanation already made (a held object that a sweep explains, then its namespace) reuses it.
func (x *Explainer) explain(ctx context.Context, res kinds.Resource, obj metav1.Object, depth int) *Explanation {
	id := "/" + refFor(res, obj.GetNamespace(), obj.GetName()).String() + "/" + string(obj.GetUID())
	for d := 0; d < depth; d++ {
		// An explanation made nearer the top (a sweep's own) reaches at least as deep: reuse it
		// when it is done (waiting for one under way could close a cycle of waits).
		x.mu.Lock()
		v, ok := x.cache["explain/"+strconv.Itoa(d)+id]
		x.mu.Unlock()
		if ok {
			return v.(cacheEntry[*Explanation]).v
		}
	}
	key := "explain/" + strconv.Itoa(depth) + id
	e, _ := cached(x, key, func() (*Explanation, error) {
		return x.explainOnce(ctx, res, obj, depth), nil
	})
	return e
}
