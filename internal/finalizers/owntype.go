package finalizers

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// candidacyOnly reports whether a candidate's every tie to the finalizer's domain is the very
// right that made it a candidate: its roles name the object's API group only for the object's
// own resource (and its subresources), and nothing else (labels, image, webhooks, other types of
// the group) ties it. An installer that may update the class-like objects it creates has that
// right and nothing more; the controller of the domain acts on the group's other types too.
func candidacyOnly(ts []tie, group, resource, ns, sa string, rb *rbacObjects) bool {
	if len(ts) == 0 || group == "" {
		return false
	}
	for _, t := range ts {
		if t.group != group {
			return false
		}
	}
	only := true
	rb.boundRules(ns, sa, func(rules []rbacv1.PolicyRule, _ string) {
		for _, r := range rules {
			if !anyOf(r.APIGroups, group) {
				continue
			}
			for _, res := range r.Resources {
				if res != resource && !strings.HasPrefix(res, resource+"/") {
					only = false
				}
			}
		}
	})
	return only
}

// dropCandidacyOnly moves the tied candidates whose only tie is the right that made them
// candidates (candidacyOnly) to unrelated, when another tied candidate has a tie beyond it:
// that right is no evidence of ownership once a better-tied controller exists.
func dropCandidacyOnly(tied []Controller, tiesOf map[string][]tie, byRef map[string]workload, group, resource, what string, rb *rbacObjects) (kept, dropped []Controller) {
	only := map[int]bool{}
	for i, c := range tied {
		w, ok := byRef[c.Object.String()]
		if ok && c.Found && candidacyOnly(tiesOf[c.Object.String()], group, resource, w.ref.Namespace, w.serviceAccount, rb) {
			only[i] = true
		}
	}
	if len(only) == 0 || len(only) == len(tied) {
		return tied, nil
	}
	for i, c := range tied {
		if !only[i] {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("may update %s, but its only tie to the finalizer's domain is that right itself (its roles name %s for no other type), while another candidate is tied beyond it", what, group)
		dropped = append(dropped, c)
	}
	return kept, dropped
}
