package finalizers

import (
	"context"
	"fmt"
)

// backendNamespaceGoing answers a blocker whose Service (a webhook's, a conversion's or an
// APIService's backend) still selects installed workloads in a namespace that is itself being
// deleted (a Service or workload already gone says the product appears uninstalled, and the
// removal leads already): the workloads behind that Service go with the namespace's content, and the API server refuses every new object in
// it, so nothing can bring the backend back there (Stash's operator served its two APIServices
// from its own namespace; that namespace deleted, it waits for their discovery for ever,
// stashed/stash#785). The removal the caller would keep for a product removed for good is then
// the fix, first, and says why; ok is false when the namespace is not being deleted or could not
// be read (the caller's rules stand: an unread namespace is never taken for a going one).
func (x *Explainer) backendNamespaceGoing(ctx context.Context, b Blocker, svc serviceRef, removal Remediation) (Remediation, bool) {
	since, _ := x.namespaceGoing(ctx, svc.namespace, nil)
	if since == nil {
		return removal, false
	}
	removal.Summary = fmt.Sprintf("namespaces/%s, where %s and the workloads behind it live, is being deleted (since %s): they go with it, and nothing new can be created in it, so nothing will serve %s again. %s",
		svc.namespace, svc.String(), since.Format("2006-01-02T15:04:05Z"), b.Object.String(), removal.Summary)
	removal.LastResort = false
	return removal, true
}
