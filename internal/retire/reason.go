package retire

// Reason is the stable, kebab-case code of a removal's verdict, beside the text that explains
// it: scripts, SARIF rules and reports key on the code, people read the text. Codes are added,
// never renamed or removed; docs/safe-retire.md lists each with one line.
type Reason string

// The reasons a removal is unsafe.
const (
	// ReasonPrunePersistent: the Kustomization prunes an object that holds persistent state.
	ReasonPrunePersistent Reason = "prune-persistent"
	// ReasonProtectionNotApplied: the protection is merged but the live object does not carry
	// it yet, so the prune still happens.
	ReasonProtectionNotApplied Reason = "prune-protection-not-applied"
	// ReasonKustomizationDeletedPersistent: the candidate deletes the Kustomization, and its
	// deletionPolicy deletes an object that holds persistent state.
	ReasonKustomizationDeletedPersistent Reason = "kustomization-deleted-persistent"
	// ReasonHelmUninstallPersistent: pruning a HelmRelease uninstalls its release, which
	// deletes persistent state.
	ReasonHelmUninstallPersistent Reason = "helm-uninstall-persistent"
	// ReasonHelmUpgradeDropsClaim: the candidate's values stop making a claim, and the Helm
	// upgrade deletes it.
	ReasonHelmUpgradeDropsClaim Reason = "helm-upgrade-drops-claim"
	// ReasonHelmUpgradeDeletesPersistent: the release's new manifest no longer has an object
	// that holds persistent state, so Helm deletes it.
	ReasonHelmUpgradeDeletesPersistent Reason = "helm-upgrade-deletes-persistent"
	// ReasonHelmReinstallPersistent: the candidate makes helm-controller uninstall and install
	// the release again, deleting persistent state of the old manifest.
	ReasonHelmReinstallPersistent Reason = "helm-reinstall-persistent"
	// ReasonMovePersistent: the object moves to another Kustomization unprotected, and holds
	// persistent state the prune-before-adopt race can delete.
	ReasonMovePersistent Reason = "move-persistent"
	// ReasonClaimStillMounted: the candidate still mounts the removed claim in a workload.
	ReasonClaimStillMounted Reason = "claim-still-mounted"
	// ReasonPruneWedge: a pod or finalizer holds the pruned object in Terminating, which wedges
	// the Kustomization's health check if the revision is undone (live).
	ReasonPruneWedge Reason = "prune-wedges-kustomization"
)

// The reasons of removals that are not unsafe, or that only need attention.
const (
	// ReasonMoved: another Kustomization declares the object in the candidate; whichever
	// reconciles first decides.
	ReasonMoved Reason = "moved"
	// ReasonPruneStateless: pruned, and it holds no persistent state.
	ReasonPruneStateless Reason = "prune-stateless"
	// ReasonRetained: an opt-out keeps the object (an annotation or label, spec.prune: false,
	// a deletionPolicy, helm.sh/resource-policy: keep).
	ReasonRetained Reason = "retained-opt-out"
	// ReasonNotManaged: no live inventory lists the object, so Flux prunes nothing (live).
	ReasonNotManaged Reason = "not-managed"
	// ReasonInvalidObject: the manifest names an object no API server accepts; no command is
	// printed for it.
	ReasonInvalidObject Reason = "invalid-object-name"
)

// ReasonInfo is what a reason code means, in one line, and what to do about it.
type ReasonInfo struct {
	Code Reason
	// Unsafe is set for the codes that make a removal unsafe (exit 1).
	Unsafe bool
	// Summary is the one-line meaning; Help what to do.
	Summary, Help string
}

// Reasons lists every code a removal can carry, unsafe ones first.
func Reasons() []ReasonInfo {
	return []ReasonInfo{
		{ReasonPrunePersistent, true, "Flux prunes an object that holds persistent state, and nothing protects it.",
			"Protect it first (kustomize.toolkit.fluxcd.io/prune: disabled in git, merged and applied alone), drain it, then remove the manifest and delete by hand: the plan's four stages."},
		{ReasonProtectionNotApplied, true, "The protection is merged, but the live object does not carry it yet, so the prune still deletes it.",
			"Wait until the Kustomization has applied the revision with the protection before merging the removal."},
		{ReasonKustomizationDeletedPersistent, true, "The candidate deletes the Kustomization, and its deletionPolicy deletes an object that holds persistent state.",
			"Before deleting the Kustomization, protect the object in git (or set spec.deletionPolicy: Orphan) and let the Kustomization apply it."},
		{ReasonHelmUninstallPersistent, true, "Pruning the HelmRelease uninstalls its release, which deletes persistent state the chart made.",
			"Keep the state first: helm.sh/resource-policy: keep on the claims (retain: true in app-template), or suspend the HelmRelease, then retire it."},
		{ReasonHelmUpgradeDropsClaim, true, "The candidate's values no longer make a claim the base values make, so the Helm upgrade deletes it.",
			"Keep the claim in the values with retain: true (app-template) or helm.sh/resource-policy: keep, merged alone, before the change."},
		{ReasonHelmUpgradeDeletesPersistent, true, "The release's new manifest no longer has an object that holds persistent state, so Helm deletes it on upgrade.",
			"Make the chart put helm.sh/resource-policy: keep on the object before the change, then drain and delete by hand."},
		{ReasonHelmReinstallPersistent, true, "The candidate makes helm-controller uninstall and reinstall the release, deleting persistent state of its old manifest.",
			"Keep the state with helm.sh/resource-policy: keep before the change, or avoid the change that forces the reinstall."},
		{ReasonMovePersistent, true, "The object moves to another Kustomization unprotected: if the old one prunes before the new one adopts, its persistent state is lost.",
			"Protect it in the old Kustomization first, merge the move, then remove the protection."},
		{ReasonClaimStillMounted, true, "The candidate removes a claim that its workloads still mount.",
			"Drain the mounts in git first: remove the volumes from the workloads, merge, and wait for their pods to roll."},
		{ReasonPruneWedge, true, "A pod or finalizer holds the pruned object in Terminating; if the revision is undone, the Kustomization's health check fails on every retry and freezes what depends on it.",
			"Drain the consumers (or clear the finalizer's holder) before the prune."},
		{ReasonMoved, false, "Another Kustomization declares the object in the candidate; whichever reconciles first decides.",
			"Nothing to do when it holds no state; otherwise protect it in the old Kustomization first."},
		{ReasonPruneStateless, false, "Flux prunes the object, which holds no persistent state.", "Nothing to do."},
		{ReasonRetained, false, "An opt-out keeps the object; Flux drops it from its inventory and leaves it in place.",
			"Delete it by hand once nothing uses it (the plan's stages 2 and 4, or safe-retire --orphans later)."},
		{ReasonNotManaged, false, "No live inventory lists the object, so Flux prunes nothing.", "Nothing to do for Flux; delete it by hand if it is a leftover."},
		{ReasonInvalidObject, false, "The manifest names an object no API server accepts, so no command is printed for it.", "Fix the manifest's name or namespace."},
	}
}

// LookupReason returns what code means; false for a code no removal carries.
func LookupReason(code Reason) (ReasonInfo, bool) {
	for _, info := range Reasons() {
		if info.Code == code {
			return info, true
		}
	}
	return ReasonInfo{}, false
}

// addReason records why a removal is unsafe or needs attention: the text and its code, kept
// side by side in Reasons and ReasonCodes.
func (r *Removal) addReason(code Reason, text string) {
	r.Reasons = append(r.Reasons, text)
	r.ReasonCodes = append(r.ReasonCodes, code)
	r.classify()
}

// resetReasons clears the reasons before a removal is judged again.
func (r *Removal) resetReasons() {
	r.Reasons, r.ReasonCodes = nil, nil
	r.classify()
}

// classify sets Reason: the first reason recorded whose code agrees with Unsafe (a retained
// claim the candidate still mounts is not unsafe, so its code is the outcome's), else the code
// of the outcome.
func (r *Removal) classify() {
	for _, c := range r.ReasonCodes {
		if info, _ := LookupReason(c); info.Unsafe == r.Unsafe {
			r.Reason = c
			return
		}
	}
	switch {
	case r.Outcome == Retained:
		r.Reason = ReasonRetained
	case r.Outcome == NotManaged:
		r.Reason = ReasonNotManaged
	case r.Outcome == Moved:
		r.Reason = ReasonMoved
	case r.Outcome == Pruned && r.Persistent == nil:
		r.Reason = ReasonPruneStateless
	case r.Outcome == Pruned:
		r.Reason = ReasonPrunePersistent
	case len(r.ReasonCodes) > 0:
		r.Reason = r.ReasonCodes[0]
	default:
		r.Reason = ""
	}
}
