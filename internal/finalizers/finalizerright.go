package finalizers

import rbacv1 "k8s.io/api/rbac/v1"

// namesFinalizers reports whether the service account's roles grant update or patch on the
// type's finalizers subresource by name (`workflows/finalizers`), not through a wildcard. A
// controller asks for that right because it manages the finalizers (or the blocking owner
// references) of those objects; a workload that may only update the objects themselves (an API
// or UI server that edits them for users) does not. Between candidates tied to the finalizer's
// domain with the same confidence, the one that names the subresource is the likelier remover.
func namesFinalizers(rb *rbacObjects, ns, sa, group, resource string) bool {
	found := false
	rb.boundRules(ns, sa, func(rules []rbacv1.PolicyRule, _ string) {
		for _, r := range rules {
			if anyOf(r.APIGroups, group) && anyOf(r.Resources, resource+"/finalizers") && anyOf(r.Verbs, "update", "patch", "*") {
				found = true
			}
		}
	})
	return found
}
