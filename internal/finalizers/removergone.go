package finalizers

import (
	"fmt"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// readerGone tells "the product's remover is gone" from "orphaned" when no workload may update
// the object while workloads tied to the finalizer's domain run (domainWorkloads' tied). A
// controller watches the objects it finalizes: it is granted get, list or watch on their type.
// When none of the workloads tied to the domain may so much as read the object's type, what runs
// of the product is another component of it (a node daemon, a webhook, an agent), and the
// component that reconciled this type, and removed its finalizer, is not installed any more: the
// product was uninstalled in part (its operator removed, a daemon left behind). The finalizer is
// then not orphaned — reinstalling that component removes it — and line says why, naming the
// workloads that run. When one of them may read the type, it is the component that handles it and
// still may not update it: nothing will ever remove the finalizer (orphaned, as before). Rules
// that allow every resource of every group count as reading, so a broad role never turns an
// orphan into a gone remover.
func readerGone(group, resource, what, domain string, tied []workload, rb *rbacObjects) (string, bool) {
	if len(tied) == 0 {
		return "", false
	}
	var names []string
	for _, w := range tied {
		if mayRead(rb, w.ref.Namespace, w.serviceAccount, group, resource) {
			return "", false
		}
		names = append(names, w.ref.String())
	}
	sort.Strings(names)
	stayed := "it stayed"
	if len(names) > 1 {
		stayed = "they stayed"
	}
	return fmt.Sprintf("none of the workloads tied to the finalizer's domain %s (%s) may so much as read %s (get, list or watch), as the controller that reconciles it and removes this finalizer must: that component of the product is not installed any more (uninstalled while %s), so the finalizer waits for it to come back; it is not orphaned",
		domain, strings.Join(names, ", "), what, stayed), true
}

// mayRead reports whether any role bound to the service account lets it get, list or watch the
// resource of group (any namespace a binding grants it in: a reader anywhere counts).
func mayRead(rb *rbacObjects, ns, sa, group, resource string) bool {
	reads := false
	rb.boundRules(ns, sa, func(rules []rbacv1.PolicyRule, _ string) {
		for _, r := range rules {
			if anyOf(r.Verbs, "get", "list", "watch", "*") && anyOf(r.APIGroups, group, "*") && anyOf(r.Resources, resource, "*") {
				reads = true
			}
		}
	})
	return reads
}
