package finalizers

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
)

// applyOutsideAdder explains a finalizer no workload in the cluster removes (no controller of
// its domain found, no blocker) when the field manager that added it (the object's managedFields)
// names a word of the finalizer's domain, no workload of the cluster answers to it, and the
// cluster serves no API group of that domain: nothing of that domain was ever installed here, so
// the component that added the finalizer is a client outside the cluster (a platform's service,
// a job system) that removes it after its own cleanup. As with an outside identity's grant
// (applyOutsideClient), that client comes first, the strip after it, and no reinstall of an
// in-cluster product, which would not bring it back. A domain some served group belongs to is a
// product installed here whose component is gone (applyFinalizerAdder's reading), not this.
func (x *Explainer) applyOutsideAdder(ctx context.Context, o subject, e *Explanation, obj *unstructured.Unstructured) {
	if obj == nil {
		return
	}
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if f.Domain == "" || len(f.Blockers) > 0 || slices.ContainsFunc(f.Controllers, func(c Controller) bool { return c.Found }) ||
			strings.Contains(f.Attribution, "a client outside the cluster") || domainServed(x.catalog.Preferred(), f.Domain) {
			continue
		}
		managers := finalizerAdders(obj.GetManagedFields(), f.Name)
		if len(managers) == 0 {
			continue
		}
		ws, err := x.workloads(ctx)
		if err != nil {
			f.Unchecked = append(f.Unchecked, listGap(workloadsID(), "listing workloads to find which one added "+f.Name, err))
			continue
		}
		// judgeAdder's gone: the first adder naming the domain that no workload answers to.
		if m := judgeAdder(managers, f.Domain, nil, ws).gone; m != "" {
			outsideClientSteps(f, o, []outsideGrant{{kind: "field manager", name: m, via: "it added the finalizer, by the object's managedFields; no workload of the cluster answers to it and no API group of the domain is served"}})
		}
	}
}

// domainServed reports whether the cluster serves an API group of the domain: the group is the
// domain, or one is a subdomain of the other (`finalizers.rds.services.k8s.aws` and
// rds.services.k8s.aws).
func domainServed(served []kinds.Resource, domain string) bool {
	return slices.ContainsFunc(served, func(r kinds.Resource) bool {
		g := r.Group
		return g != "" && (g == domain || strings.HasSuffix(domain, "."+g) || strings.HasSuffix(g, "."+domain))
	})
}
