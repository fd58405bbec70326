package finalizers

import (
	"fmt"
	"slices"
	"strings"
)

// goneTarget reports a missing object the stuck object names by a target field (targetField:
// `targetRef`, `scaleTargetRef`, `target`, …): what the object acts on, not what it reads from.
// A gone owner, a node, or an object known only by inference is no target.
func goneTarget(d dangling) bool {
	if d.owner || d.inferred || d.path == "" {
		return false
	}
	last := d.path[strings.LastIndex(d.path, ".")+1:]
	if i := strings.Index(last, "["); i >= 0 {
		last = last[:i]
	}
	return targetField(strings.ToLower(last))
}

// targetsGone orders the steps of a finalizer held only by missing targets. An object's
// finalizer on what it targets exists to undo what the object did to its target (the scale
// limits an autoscaler set on it, the routing put in front of it, a canary's changes) before the
// object goes; with the target gone there is nothing left on it to undo, and the controller,
// failing to read it, never finishes. Removing the finalizer is then the way out and comes
// first, no longer a last resort; creating the target again only gives the controller something
// to undo — and a target that runs or provisions things (a workload, a set of machines) starts
// them — so it follows, for when the cleanup must run anyway. The strip's cost says what it
// leaves: nothing on the target, and whatever else the controller cleans up, which the cluster
// does not show.
func targetsGone(f *Finalizer, found []dangling) {
	if len(found) == 0 || slices.ContainsFunc(found, func(d dangling) bool { return !goneTarget(d) }) {
		return
	}
	s := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
	if s < 0 {
		return
	}
	var names, paths []string
	for _, d := range found {
		if !slices.Contains(names, d.ref.String()) {
			names, paths = append(names, d.ref.String()), append(paths, d.path)
		}
	}
	strip := f.Remedies[s]
	strip.LastResort = false
	strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: its cleanup undoes what the object did to its target (%s), and %s is gone, so nothing is left on it to undo and its controller, which cannot read it, never finishes. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", f.Name, strings.Join(paths, ", "), quote(names))
	strip.Cost = fmt.Sprintf("left behind: nothing on %s, which is gone; whatever else the controller would have cleaned up for the object, which the cluster does not show", quote(names))
	rest := slices.Delete(slices.Clone(f.Remedies), s, s+1)
	for i := range rest {
		if rest[i].Code == ReasonRestoreMissingObject {
			rest[i].Summary = "Only if the cleanup must run against it: " + lowerFirst(rest[i].Summary) + " The target is then made only to be cleaned up; one that runs or provisions things starts them."
		}
	}
	f.Remedies = append([]Remediation{strip}, rest...)
}

// lowerFirst lower-cases the first letter of s.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
