package finalizers

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/client-go/metadata"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// scanWorkers bounds the LISTs in flight during a sweep.
const scanWorkers = 16

// maxPrealloc bounds the room made in advance for the items of one type's later pages.
const maxPrealloc = 100_000

// TypeObjects are the objects of one resource type found by a sweep.
type TypeObjects struct {
	Resource kinds.Resource
	Items    []metav1.PartialObjectMetadata
}

// ReadFailure names a resource type that could not be listed and why.
type ReadFailure struct {
	Resource string `json:"resource"`
	Reason   string `json:"reason"`
	// Err is the failed read's error, typed (an API status, a network error), for callers
	// that classify the failure; Reason is its wording for people.
	Err error `json:"-"`
}

// Scan is the result of listing every listable type in one scope, metadata only.
type Scan struct {
	Types  []TypeObjects
	Failed []ReadFailure
	// Requests counts the LIST requests made, pages included.
	Requests int64
}

// ScanScope lists every listable resource type once — the namespaced ones in namespace, or
// every type in the whole cluster when namespace is "" — with a bounded pool of parallel
// metadata-only, paginated LISTs. Types that fail are recorded, never dropped.
func ScanScope(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, namespace string) *Scan {
	return Sweep(ctx, c, catalog, ScanOptions{Namespace: namespace})
}

// ScanOptions narrow a sweep.
type ScanOptions struct {
	// Namespace limits the sweep to the namespaced types in it; "" sweeps every type, cluster-wide.
	Namespace string
	// LabelSelector is sent with every LIST.
	LabelSelector string
	// Keep, when set, decides for each object, read with its managedFields, whether the sweep
	// keeps it; the kept copy has its managedFields dropped like every other.
	Keep func(r kinds.Resource, m *metav1.PartialObjectMetadata) bool
	// PageSize is the limit of each LIST; 0 means 500.
	PageSize int64
	// Shared, when set, names the types whose objects the caller may already hold in full (the
	// cluster-wide lists an explanation reads once something is stuck): it returns, for such a
	// type, how to get them, nil for any other. Those types are listed last, and when that
	// answers, its objects stand for the type's LIST (read through Keep like a page, the scope's
	// namespace cut out of them) and no LIST of the type is made; when it does not, the type is
	// listed as any other. Not used with a LabelSelector.
	Shared func(r kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool)
	// Listed, when set, is told each type's kept objects, or its error, as soon as its LIST is
	// done, from the goroutine that listed it.
	Listed func(r kinds.Resource, items []metav1.PartialObjectMetadata, err error)
}

// Sweep lists every listable resource type in the scope opts names, like ScanScope, with a
// label selector and a per-object filter applied while the pages are read.
func Sweep(ctx context.Context, c *cluster.Clients, catalog *kinds.Catalog, opts ScanOptions) *Scan {
	var types []kinds.Resource
	for _, r := range catalog.Preferred() {
		if !r.Can("list") || (opts.Namespace != "" && !r.Namespaced) {
			continue
		}
		types = append(types, r)
	}
	s := &Scan{Types: make([]TypeObjects, len(types))}
	order, shared := sweepOrder(types, opts)
	var mu sync.Mutex
	var requests atomic.Int64
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < scanWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				items, ok := fromShared(types[i], shared[i], opts)
				var err error
				if !ok {
					items, err = listPages(ctx, c.Metadata, types[i], opts, &requests)
				}
				if err != nil {
					mu.Lock()
					s.Failed = append(s.Failed, ReadFailure{Resource: types[i].QualifiedName(), Reason: cluster.Reason(err), Err: err})
					mu.Unlock()
				}
				s.Types[i] = TypeObjects{Resource: types[i], Items: items}
				if opts.Listed != nil {
					opts.Listed(types[i], items, err)
				}
			}
		}()
	}
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
	s.Requests = requests.Load()
	sort.Slice(s.Failed, func(i, j int) bool { return s.Failed[i].Resource < s.Failed[j].Resource })
	return s
}

// sweepOrder returns the order in which a sweep lists types (their indexes), the types
// opts.Shared may answer for last, so that by the time they come the reads that hold them
// have had the whole sweep to start, and for each index what Shared answered.
func sweepOrder(types []kinds.Resource, opts ScanOptions) ([]int, []func() ([]metav1.PartialObjectMetadata, bool)) {
	order := make([]int, 0, len(types))
	shared := make([]func() ([]metav1.PartialObjectMetadata, bool), len(types))
	var last []int
	for i, r := range types {
		if opts.Shared != nil && opts.LabelSelector == "" {
			shared[i] = opts.Shared(r)
		}
		if shared[i] != nil {
			last = append(last, i)
			continue
		}
		order = append(order, i)
	}
	return append(order, last...), shared
}

// fromShared returns r's objects in the sweep's scope from what the caller already holds, read
// through opts.Keep like a page; false when it holds none.
func fromShared(r kinds.Resource, shared func() ([]metav1.PartialObjectMetadata, bool), opts ScanOptions) ([]metav1.PartialObjectMetadata, bool) {
	if shared == nil {
		return nil, false
	}
	all, ok := shared()
	if !ok {
		return nil, false
	}
	var out []metav1.PartialObjectMetadata
	for i := range all {
		m := all[i]
		if r.Namespaced && opts.Namespace != "" && m.Namespace != opts.Namespace {
			continue
		}
		if opts.Keep != nil && !opts.Keep(r, &m) {
			continue
		}
		m.ManagedFields = nil
		out = append(out, m)
	}
	return out, true
}

// ListMetadata lists every object of r in namespace ("" for all namespaces, or r is
// cluster-scoped), metadata only, page by page, dropping managedFields to keep memory flat.
// Each page adds one to requests when it is not nil.
func ListMetadata(ctx context.Context, md metadata.Interface, r kinds.Resource, namespace string, requests *atomic.Int64) ([]metav1.PartialObjectMetadata, error) {
	return listPages(ctx, md, r, ScanOptions{Namespace: namespace}, requests)
}

func listPages(ctx context.Context, md metadata.Interface, r kinds.Resource, o ScanOptions, requests *atomic.Int64) ([]metav1.PartialObjectMetadata, error) {
	var lister metadata.ResourceInterface = md.Resource(r.GVR())
	if r.Namespaced && o.Namespace != "" {
		lister = md.Resource(r.GVR()).Namespace(o.Namespace)
	}
	var out []metav1.PartialObjectMetadata
	opts := metav1.ListOptions{Limit: 500, LabelSelector: o.LabelSelector}
	if o.PageSize > 0 {
		opts.Limit = o.PageSize
	}
	for {
		if requests != nil {
			requests.Add(1)
		}
		list, err := lister.List(ctx, opts)
		if err != nil {
			return out, err
		}
		// The kept items are compacted in place: the first page (for most types the only one)
		// becomes the result without a copy.
		kept := list.Items[:0]
		for i := range list.Items {
			if o.Keep != nil && !o.Keep(r, &list.Items[i]) {
				continue
			}
			list.Items[i].ManagedFields = nil
			kept = append(kept, list.Items[i])
		}
		clear(list.Items[len(kept):])
		switch {
		case len(kept) == 0:
		case out == nil && list.Continue != "" && list.RemainingItemCount != nil && *list.RemainingItemCount > 0:
			// More pages follow, and the server says how many items: room for them all at
			// once, rather than growing page by page (bounded: the count is the server's word).
			out = make([]metav1.PartialObjectMetadata, 0, len(kept)+int(min(*list.RemainingItemCount, maxPrealloc)))
			out = append(out, kept...)
		case out == nil:
			out = kept
		default:
			out = append(out, kept...)
		}
		if list.Continue == "" {
			return out, nil
		}
		opts.Continue = list.Continue
	}
}

// scan returns the sweep of a scope, made once per command.
func (x *Explainer) scan(ctx context.Context, namespace string) *Scan {
	s, _ := cached(x, "scan/"+namespace, func() (*Scan, error) {
		if d := x.derivedScan(ctx, namespace); d != nil {
			return d, nil
		}
		return ScanScope(ctx, x.c, x.catalog, namespace), nil
	})
	return s
}

// ListRequests counts the LIST requests the Explainer's sweeps made so far (a namespace's
// content, the dependents of an owner).
func (x *Explainer) ListRequests() int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	var n int64
	for _, v := range x.cache {
		if e, ok := v.(cacheEntry[*Scan]); ok && e.v != nil {
			n += e.v.Requests
		}
	}
	return n
}
