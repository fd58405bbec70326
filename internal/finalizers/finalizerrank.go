package finalizers

import (
	"fmt"
	"slices"
	"strings"
)

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

// uiWords name a component that serves people (a web UI, a console), not a reconciler: one
// edits objects on a user's request and finalizes nothing.
var uiWords = []string{"dashboard", "console", "frontend", "portal", "webui"}

// servesPeople reports a workload whose name or component label is a UI's: a word of uiWords,
// or `ui` as a whole dash-separated word.
func servesPeople(w workload) bool {
	for _, s := range []string{w.ref.Name, w.labels["app.kubernetes.io/component"], w.labels["component"]} {
		s = strings.ToLower(s)
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
			if part == "ui" || slices.Contains(uiWords, part) {
				return true
			}
		}
	}
	return false
}

// apartServingPeople lists apart the tied candidates that serve people (servesPeople) when a
// tied candidate that does not runs beside them: a dashboard may edit every object of its
// product (to pause or archive it) and is given the rights to, but the product's controller
// removes the finalizers. Alone, a UI stays the candidate.
func apartServingPeople(tied []Controller, byRef map[string]workload, what string) (kept, apart []Controller) {
	var reconciler string
	for _, c := range tied {
		if w, ok := byRef[c.Object.String()]; ok && c.Found && !servesPeople(w) {
			reconciler = c.Object.String()
			break
		}
	}
	if reconciler == "" {
		return tied, nil
	}
	for _, c := range tied {
		if w, ok := byRef[c.Object.String()]; ok && c.Found && servesPeople(w) {
			c.Note = fmt.Sprintf("tied to the finalizer's domain and may update %s, but it serves people (its name or component says a UI): it edits objects on request, while %s reconciles them", what, reconciler)
			apart = append(apart, c)
			continue
		}
		kept = append(kept, c)
	}
	return kept, apart
}
