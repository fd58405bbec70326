package finalizers

import (
	"strings"
)

// specificity breaks a tie between candidates of equal confidence by the most specific label of
// the finalizer's domain that the candidate itself names: for chains.tekton.dev, a workload
// named, imaged or labelled for "chains" is more specific than one that only names "tekton",
// which every controller of that family does (Tekton Pipelines and Tekton Chains both act on
// tekton.dev). It is the number of domain labels from the one matched to the top-level one, 0
// when none is named; the name, namespace, images and product labels are read, never a list of
// products.
func specificity(domain string, w workload) int {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return 0
	}
	labels = labels[:len(labels)-1]
	var said []string
	said = append(said, w.ref.Name, w.ref.Namespace)
	for _, img := range w.images {
		said = append(said, imageName(img))
	}
	for _, k := range productLabels {
		if v := w.labels[k]; v != "" {
			said = append(said, v)
		}
	}
	named := map[string]bool{}
	for _, s := range said {
		for _, word := range words(s) {
			named[word] = true
		}
	}
	for i, l := range labels {
		for _, word := range words(l) {
			if named[word] {
				return len(labels) - i
			}
		}
	}
	return 0
}
