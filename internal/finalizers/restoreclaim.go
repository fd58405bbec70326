package finalizers

import (
	"fmt"
	"slices"
	"strings"
)

// applyRestoreClaim drops the step that creates a missing PersistentVolumeClaim again (as it
// was): a claim is bound to its volume by uid (the volume's spec.claimRef), so a claim created
// again under the same name is bound to whatever volume its class provisions now, never to the
// one the deleted claim had (deleted with it under reclaim policy Delete, or Released and kept
// from every new claim under Retain). A cleanup that needed the claim to find that volume (a
// VolumeReplication that disables replication on the claim's volume before it removes its
// finalizer, csi-addons/volume-replication-operator#38) can never run against it; creating the
// claim again would provision a volume for nothing. The blocker keeps its place and says it
// cannot come back as it was; when no step that could complete the cleanup is left, the strip
// comes first and says it is the way out (the volume's own state went with the volume).
func applyRestoreClaim(e *Explanation) {
	for i := range e.Finalizers {
		restoreClaim(&e.Finalizers[i])
	}
}

func restoreClaim(f *Finalizer) {
	var gone []string
	left := 0
	var kept []Remediation
	for _, r := range f.Remedies {
		if r.Code != ReasonRestoreMissingObject {
			kept = append(kept, r)
			continue
		}
		b := slices.IndexFunc(f.Blockers, func(b Blocker) bool {
			return b.Code == ReasonMissingObject && b.Object.Group == "" && b.Object.Resource == "persistentvolumeclaims" && strings.Contains(r.Summary, b.Object.String())
		})
		if b < 0 {
			left++
			kept = append(kept, r)
			continue
		}
		blocker := &f.Blockers[b]
		blocker.Details = append(blocker.Details, "a claim created again is bound to a new volume, never to the one this claim had: it cannot come back as it was")
		gone = append(gone, blocker.Object.String())
	}
	if len(gone) == 0 {
		return
	}
	f.Remedies = kept
	if left > 0 {
		return
	}
	s := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
	if s < 0 {
		return
	}
	strip := f.Remedies[s]
	strip.LastResort = false
	strip.Summary = fmt.Sprintf("Remove finalizer %s by hand: what its cleanup needs (%s) is gone, and a claim created again is bound to a new volume, never to the one its cleanup was for, so nothing will ever complete it. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", f.Name, strings.Join(gone, ", "))
	f.Remedies = append([]Remediation{strip}, slices.Delete(f.Remedies, s, s+1)...)
}
