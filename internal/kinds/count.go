package kinds

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
)

// CountObjects counts the objects of a resource in namespace ("" for all namespaces) with a
// metadata-only LIST. It asks for one item and reads the server's remainingItemCount, so the
// cost does not grow with the number of objects; it pages only when the server omits the count.
func CountObjects(ctx context.Context, md metadata.Interface, r Resource, namespace string) (int, error) {
	ri := md.Resource(r.GVR())
	var lister interface {
		List(context.Context, metav1.ListOptions) (*metav1.PartialObjectMetadataList, error)
	} = ri
	if r.Namespaced && namespace != "" {
		lister = ri.Namespace(namespace)
	}
	total := 0
	opts := metav1.ListOptions{Limit: 1}
	for {
		list, err := lister.List(ctx, opts)
		if err != nil {
			return 0, err
		}
		total += len(list.Items)
		if list.RemainingItemCount != nil {
			return total + int(*list.RemainingItemCount), nil
		}
		if list.Continue == "" {
			return total, nil
		}
		opts = metav1.ListOptions{Limit: 500, Continue: list.Continue}
	}
}

// CountCandidates fills in each candidate's object count in namespace ("" for all namespaces),
// in parallel. A count that cannot be read is recorded as such, never as zero.
func (e *AmbiguousError) CountCandidates(ctx context.Context, md metadata.Interface, namespace string) {
	e.Scope = "in all namespaces"
	if namespace != "" {
		e.Scope = "in namespace " + namespace
	}
	var wg sync.WaitGroup
	for i := range e.Candidates {
		wg.Add(1)
		go func(c *Candidate) {
			defer wg.Done()
			n, err := CountObjects(ctx, md, c.Resource, namespace)
			if err != nil {
				c.CountErr = err.Error()
				return
			}
			c.Count = &n
		}(&e.Candidates[i])
	}
	wg.Wait()
}
