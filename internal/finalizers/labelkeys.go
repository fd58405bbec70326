package finalizers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// labelKeyTies are the workload's own labels whose key lies in the finalizer's domain family
// (the domain, a parent, a subdomain or a sibling under a parent that is not a shared one) and
// whose value names the workload itself (its name, app.kubernetes.io/name or app): a product
// labels its own controller under its own domain (`controller.oam.dev/name=vela-core` beside
// `app.oam.dev/…`). Keys under a domain that is, or sits under, an installed API group are left
// out: that API's controller labels what it deploys (a GitOps tool's instance labels), which says
// nothing of the workload's product; so are keys under shared parents (`app.kubernetes.io`). Low confidence: a label is weaker than rights or serving.
func labelKeyTies(domain string, w workload, idx *productIndex) []tie {
	self := map[string]bool{strings.ToLower(w.ref.Name): true}
	for _, k := range []string{"app.kubernetes.io/name", "app"} {
		if v := w.labels[k]; v != "" {
			self[strings.ToLower(v)] = true
		}
	}
	keys := slices.Sorted(maps.Keys(w.labels))
	var out []tie
	for _, k := range keys {
		kd, _, ok := strings.Cut(k, "/")
		if !ok || !self[strings.ToLower(w.labels[k])] || underInstalledGroup(strings.ToLower(kd), idx) {
			continue
		}
		if c, why := groupTie(domain, kd); c != ConfidenceNone {
			out = append(out, tie{conf: ConfidenceLow, evidence: fmt.Sprintf("its label %s=%s names itself under %s (%s)", k, w.labels[k], kd, why)})
		}
	}
	return out
}

// underInstalledGroup reports whether d is the API group of an installed CRD or a shared parent
// (`app.kubernetes.io` labels every product), or sits under one.
func underInstalledGroup(d string, idx *productIndex) bool {
	if idx.crdGroups[d] || sharedParents[d] {
		return true
	}
	for _, p := range parents(d) {
		if idx.crdGroups[p] || sharedParents[p] {
			return true
		}
	}
	return false
}
