package finalizers

import (
	"fmt"
	"slices"
	"strings"
)

// pathGenericWords are words of a finalizer's name after its domain that say what a finalizer
// does, not which component handles it (`rule` of `cilium-no-masquerade-rule`).
var pathGenericWords = map[string]bool{
	"rule": true, "rules": true, "hook": true, "hooks": true, "finalize": true, "protect": true,
	"owner": true, "owners": true, "remove": true, "removal": true, "object": true, "objects": true,
	"dependents": true, "external": true, "sync": true, "state": true, "teardown": true, "wait": true,
}

// finalizerPathWords are the distinctive words of a finalizer's name after its domain
// (`cilium`, `masquerade` of `eip.materialize.cloud/cilium-no-masquerade-rule`; `autoneg` of
// `anthos.cft.dev/autoneg`): at least four letters, neither generic nor one of pathGenericWords.
// A finalizer without `/` has no such part.
func finalizerPathWords(name string) []string {
	_, path, found := strings.Cut(name, "/")
	if !found {
		return nil
	}
	var out []string
	for _, w := range words(path) {
		if len(w) >= 4 && !pathGenericWords[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// namesFinalizerPath reports whether a workload's own name or one of its product or component
// labels names every distinctive word of the finalizer's name after its domain, and which
// words: a product writes under its domain the name of the component that handles the
// finalizer (its per-node agent `cilium-eip-no-masquerade-agent` for
// `.../cilium-no-masquerade-rule`, the `autoneg` controller for `anthos.cft.dev/autoneg`). The
// namespace and images, which a product's components share, are not read.
func namesFinalizerPath(name string, w workload) (string, bool) {
	want := finalizerPathWords(name)
	if len(want) == 0 {
		return "", false
	}
	said := map[string]bool{}
	for _, s := range append([]string{w.ref.Name, w.labels["app.kubernetes.io/component"], w.labels["component"]}, labelValues(w.labels, productLabels)...) {
		for _, word := range words(s) {
			said[word] = true
		}
	}
	for _, word := range want {
		if !said[word] {
			return "", false
		}
	}
	return strings.Join(want, ", "), true
}

// pathTie is the tie of a workload that the finalizer's own name names (namesFinalizerPath):
// low, as a name is, but enough for a controller whose domain says nothing of it
// (`anthos.cft.dev`) to be found.
func pathTie(name string, w workload) []tie {
	said, ok := namesFinalizerPath(name, w)
	if !ok {
		return nil
	}
	return []tie{{conf: ConfidenceLow, evidence: fmt.Sprintf("its name or labels name %s, as the finalizer's own name after its domain does", quote(strings.Split(said, ", ")))}}
}

// labelValues are the values of keys in labels, empty ones left out.
func labelValues(labels map[string]string, keys []string) []string {
	var out []string
	for _, k := range keys {
		if v := labels[k]; v != "" {
			out = append(out, v)
		}
	}
	return out
}
