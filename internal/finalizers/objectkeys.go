package finalizers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// minMarkName is the shortest workload name read in a key's domain: shorter ones (`app`, `web`)
// are words of every product.
const minMarkName = 4

// objectKeyTies are the stuck object's own annotation and label keys whose domain begins with
// the workload's name (or its app.kubernetes.io/name, app or application label): a controller
// marks the objects it handles under keys of its own (`remove-empty-ns-operator.kopf.dev/
// will-remove` on the namespaces that operator deletes). Low confidence; medium when the key's
// domain also shares a word with the finalizer's domain (`kopf` of kopf.zalando.org), the
// framework the controller is built on putting both.
func objectKeyTies(domain string, annotations, labels map[string]string, w workload) []tie {
	self := map[string]bool{}
	for _, n := range []string{w.ref.Name, w.labels["app.kubernetes.io/name"], w.labels["app"], w.labels["application"]} {
		if len(n) >= minMarkName {
			self[strings.ToLower(n)] = true
		}
	}
	tokens := domainTokens(domain)
	var out []tie
	add := func(what string, m map[string]string) {
		keys := slices.Sorted(maps.Keys(m))
		for _, k := range keys {
			kd, _, ok := strings.Cut(k, "/")
			if !ok || !strings.Contains(kd, ".") {
				continue
			}
			first, rest, _ := strings.Cut(strings.ToLower(kd), ".")
			if !self[first] {
				continue
			}
			conf, also := ConfidenceLow, ""
			if t, ok := namesDomain(rest, tokens); ok {
				conf, also = ConfidenceMedium, fmt.Sprintf(", under a domain that names %q as the finalizer's domain %s does", t, domain)
			}
			out = append(out, tie{conf: conf, evidence: fmt.Sprintf("the object carries its %s %s, whose key names it (%s)%s", what, k, first, also)})
			return
		}
	}
	add("annotation", annotations)
	add("label", labels)
	return out
}
