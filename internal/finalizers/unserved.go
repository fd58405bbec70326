package finalizers

import (
	"fmt"
	"slices"
	"strings"
)

// servesDomain reports whether the cluster serves a type of the finalizer's domain as an API
// group: a CRD or an APIService of the domain itself or of a subdomain of it. The Kubernetes
// project's own group families are served by the API server itself and always count.
func (idx *productIndex) servesDomain(domain string) bool {
	if kubernetesOwnDomain(domain) {
		return true
	}
	has := func(g string) bool { return g == domain || strings.HasSuffix(g, "."+domain) }
	for g := range idx.crdGroups {
		if has(g) {
			return true
		}
	}
	for _, s := range idx.served {
		if strings.HasPrefix(s.via, "apiservices.") && has(s.group) {
			return true
		}
	}
	return false
}

// dropUnservedDomain moves to unrelated the tied candidates whose roles name the finalizer's
// domain as an API group that the cluster no longer serves (no CRD or APIService of it or of a
// subdomain): the domain's types were uninstalled, so no controller of them runs, and a workload
// that keeps rights on that group while tied to the domain only by its product's name (image,
// labels, namespace) is another component of the product, its installer most often, not the
// controller that removes the finalizer. A candidate tied with high confidence (acting on or
// serving a type the cluster does serve) stays.
func dropUnservedDomain(tied []Controller, tiesOf map[string][]tie, byRef map[string]workload, domain string, idx *productIndex, rb *rbacObjects) (kept, dropped []Controller) {
	if idx.servesDomain(domain) {
		return tied, nil
	}
	for _, c := range tied {
		w, ok := byRef[c.Object.String()]
		via := ""
		if ok && c.Found && confidenceOf(tiesOf[c.Object.String()]) != ConfidenceHigh {
			via = rb.groupsOf(w.ref.Namespace, w.serviceAccount)[domain]
		}
		if via == "" {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("its roles name API group %s (through %s), which the cluster no longer serves: the types of the finalizer's domain are uninstalled, and this workload, tied to the domain only by its product's name, is not their controller", domain, via)
		dropped = append(dropped, c)
	}
	return kept, dropped
}

// unservedDomainNote is the verdict when every tied candidate was dropped by dropUnservedDomain:
// the controller of the finalizer's domain is not installed any more.
func unservedDomainNote(domain, what string, dropped []Controller) Controller {
	names := make([]string, 0, len(dropped))
	for _, c := range dropped {
		names = append(names, c.Object.String())
	}
	return Controller{Note: fmt.Sprintf("no controller of the finalizer's domain %s is installed: the cluster no longer serves API group %s (its types were uninstalled); %s may update %s and keeps rights on that group, but is another component of the product, not the controller of its types",
		domain, domain, strings.Join(names, ", "), what)}
}

// productLeft reports whether a workload of the finalizer's product is left although none is its
// remover: an unrelated candidate that carries ties to the domain (one dropped by
// dropCandidacyOnly or dropUnservedDomain, its installer most often). Its controller can then be
// brought back through it, wherever the object's namespace stands.
func productLeft(f Finalizer) bool {
	return slices.ContainsFunc(f.Unrelated, func(c Controller) bool { return c.Found && len(c.Ties) > 0 })
}
