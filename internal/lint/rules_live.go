package lint

// The live-* rules compare the repository with a cluster (Repo.Compare); without a
// comparison they are silent.
var (
	ruleLiveNotInCluster = Rule{ID: "live-not-in-cluster", Severity: Warning, check: checkLive,
		Why: "a Kustomization the repository declares but the cluster does not have is never reconciled, and nothing reports it: the tier that applies it has not applied this revision (failing, waiting or suspended), or the cluster syncs another branch or entry path",
		Fix: "find why its parent tier does not apply it (`kubectl flux-chain` on the cluster) and check the GitRepository's ref and the entry path; a Kustomization new in this change appears once it is merged"}
	ruleLiveNotInRepo = Rule{ID: "live-not-in-repo", Severity: Warning, check: checkLive,
		Why: "a Kustomization built from this repository's source that no path of the repository declares is an orphan: its parent prunes it (with prune: true, together with everything it applied) the next time it applies, or, created by hand or under a parent that does not prune, it keeps applying outside git",
		Fix: "declare it in the repository if it must stay; otherwise retire it deliberately (`kubectl safe-retire`) before Flux prunes it"}
	ruleLiveSpecDrift = Rule{ID: "live-spec-drift", Severity: Warning, check: checkLive,
		Why: "the cluster reconciles another spec.path or dependsOn than the repository declares: the parent tier has not applied this revision or the object was edited live, so the order and content git describes are not what runs",
		Fix: "find why the parent tier does not apply this revision, and undo any live edit (`flux reconcile kustomization` on the parent)"}
	ruleLiveCRDOutsideGit = Rule{ID: "live-crd-outside-git", Severity: Warning, check: checkLive,
		Why: "the repository uses a kind whose CustomResourceDefinition only the cluster has: no tier applies it, so the dependency lives outside git and a cluster rebuilt from the repository fails the using tier with `no matches for kind`",
		Fix: "commit the CRD (or the HelmRelease that installs it) to a tier that the using tier dependsOn, with wait: true"}
)
