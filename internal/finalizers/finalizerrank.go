package finalizers

import "fmt"

// apartWithoutFinalizerRight lists apart, from candidates ranked strongest first, the ones that
// may not update the object's finalizers subresource when the first one may: a product whose
// controller is granted the finalizers subresource of its type, and another of its components
// only the type itself (an allocator that marks objects, a dashboard that edits them), has told
// the cluster which of them manages the type's finalizers. Those listed apart keep their ties as
// evidence; they are not the remover.
func apartWithoutFinalizerRight(tied []Controller, fin map[string]bool, what string) (kept, apart []Controller) {
	if len(tied) < 2 || !tied[0].Found || !fin[tied[0].Object.String()] {
		return tied, nil
	}
	kept = []Controller{tied[0]}
	for _, c := range tied[1:] {
		if fin[c.Object.String()] || !c.Found {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("tied to the finalizer's domain and may update %s, but not its finalizers subresource, which %s may: the product grants the type's finalizers to that one", what, tied[0].Object.String())
		apart = append(apart, c)
	}
	return kept, apart
}
