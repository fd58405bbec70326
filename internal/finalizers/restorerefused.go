package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// applyRestoreRefused replaces the step that creates a missing object again when the
// namespace it would be created in is itself being deleted: the API server refuses every new
// object in such a namespace, so "create it again" is a step that fails, and what the object's
// cleanup needed went with the namespace's content (a tenant's namespace deleted with
// everything in it, fission#3660). The blocker keeps its place and says it cannot come back;
// when no step that could complete the cleanup is left, the strip says it is the way out. A
// namespace that could not be read leaves the step as it is and is recorded as unchecked.
func (x *Explainer) applyRestoreRefused(ctx context.Context, e *Explanation) {
	for i := range e.Finalizers {
		x.restoreRefused(ctx, &e.Finalizers[i])
	}
}

func (x *Explainer) restoreRefused(ctx context.Context, f *Finalizer) {
	var gone []string
	left := 0
	for i, r := range f.Remedies {
		if r.Code != ReasonRestoreMissingObject {
			continue
		}
		b := slices.IndexFunc(f.Blockers, func(b Blocker) bool {
			return b.Code == ReasonMissingObject && b.Object.Namespace != "" && strings.Contains(r.Summary, b.Object.String())
		})
		if b < 0 {
			left++
			continue
		}
		blocker := &f.Blockers[b]
		ns := blocker.Object.Namespace
		since, _ := x.namespaceGoing(ctx, ns, &f.Unchecked)
		if since == nil {
			left++
			continue
		}
		what := blocker.Object.String()
		f.Remedies[i] = Remediation{Summary: fmt.Sprintf("%s cannot be created again: namespaces/%s is being deleted, and the API server refuses every new object in it; it went with the namespace's content.", what, ns)}
		blocker.Details = append(blocker.Details, fmt.Sprintf("namespaces/%s is being deleted (since %s): it cannot come back", ns, since.UTC().Format("2006-01-02T15:04:05Z")))
		gone = append(gone, what)
	}
	if len(gone) == 0 || left > 0 {
		return
	}
	for i, r := range f.Remedies {
		if r.Code == ReasonStripFinalizer {
			f.Remedies[i].Summary = fmt.Sprintf("Remove finalizer %s by hand: what its cleanup needs (%s) went with a namespace being deleted, which refuses it coming back, so nothing will ever complete it. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", f.Name, strings.Join(gone, ", "))
		}
	}
}
