package finalizers

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// firstNames returns the n names of items that sort first, in order: what sorting every name
// and keeping the first n gives, without a copy of every name or a sort of them all. A
// namespace's content can hold tens of thousands of objects of which only the first few are
// shown.
func firstNames(items []metav1.PartialObjectMetadata, n int) []string {
	out := make([]string, 0, min(n, len(items)))
	for i := range items {
		name := items[i].Name
		if len(out) == n && (n == 0 || name >= out[n-1]) {
			continue
		}
		// Insert after every name not greater (a stable place among equal names), dropping
		// the last once n are kept.
		j := len(out)
		for j > 0 && out[j-1] > name {
			j--
		}
		if len(out) < n {
			out = append(out, "")
		}
		copy(out[j+1:], out[j:len(out)-1])
		out[j] = name
	}
	return out
}
