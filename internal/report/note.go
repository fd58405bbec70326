package report

// Note is one thing a report says beside its verdict that is neither a finding nor a gap: what
// was not judged and needs no judging, with the evidence why (a tier that deletes nothing, a
// release compared object by object), or what a reviewer should know although the verdict
// stands (an installed release that drifted, a plan left without a digest). It is typed where
// it arises, like a Gap: a printer, a script or a PR comment reads what it is about from Code
// and Subject, never from the wording. The list a note is in says how much it weighs: "notes"
// are evidence, "warnings" ask to be read; neither changes the verdict. Something that was
// not read or built is never a note: it is a Gap.
type Note struct {
	// Code is what kind of note it is, from a closed set (docs/report.md).
	Code NoteCode `json:"code"`
	// Subject is the object the note is about (a Kustomization, a HelmRelease); empty when it
	// is about the run as a whole.
	Subject ObjectID `json:"subject"`
	// Message is the note for people, on one line; it may be reworded.
	Message string `json:"message"`
}

// String is the note's line for text printers.
func (n Note) String() string { return n.Message }

// NoteCode is what a note says, from a closed set: a value may be added within an apiVersion
// (docs/report.md), never renamed or removed. Each is a row of docs/report.md's reason table,
// whose "on" column says the list it appears in (note or warning).
type NoteCode string

const (
	// NoteTierKeepsAll: a tier not built at base deletes nothing, as it is suspended, does not
	// prune, or orphans what it applied when the candidate deletes it.
	NoteTierKeepsAll NoteCode = "tier-keeps-all"
	// NoteUnresolvedUnchanged: a tier leaves variables unresolved in object names, but the
	// candidate does not change it, so it removes nothing.
	NoteUnresolvedUnchanged NoteCode = "unresolved-unchanged"
	// NoteResourceSetUnchanged: a ResourceSet is not rendered offline (its inputs come from
	// the cluster), but the candidate changes neither it nor its input providers, so it
	// removes nothing.
	NoteResourceSetUnchanged NoteCode = "resourceset-unchanged"
	// NoteEnvsubstDefault: a tier's build names objects with a variable's default, as Flux's
	// envsubst does when no source defines it; a source not read could define it otherwise.
	NoteEnvsubstDefault NoteCode = "envsubst-default"
	// NoteSubstitutionSourceGone: an optional postBuild.substituteFrom source is deleted by
	// the change, so the candidate tier is built, as the controller substitutes it, without the
	// variables it defined.
	NoteSubstitutionSourceGone NoteCode = "substitution-source-gone"
	// NoteHelmValuesKeepClaims: a HelmRelease's values change is judged without a render, from
	// a chart known to make state only as its values declare, and keeps every claim.
	NoteHelmValuesKeepClaims NoteCode = "helm-values-keep-claims"
	// NoteHelmRenderedInstalled: a HelmRelease whose chart is not available was rendered with
	// its installed release's chart and compared with the installed manifest.
	NoteHelmRenderedInstalled NoteCode = "helm-rendered-installed"
	// NoteHelmReleaseCompared: a HelmRelease was rendered at the candidate and compared object
	// by object with its base render or its installed release.
	NoteHelmReleaseCompared NoteCode = "helm-release-compared"
	// NoteHelmUninstallStateless: deleting a HelmRelease uninstalls a release whose chart is
	// known to make no state.
	NoteHelmUninstallStateless NoteCode = "helm-uninstall-stateless"
	// NoteHelmSchemaNotFetched: a render did not fetch the remote schemas its chart's values
	// schema refers to; the rest of the schema applied.
	NoteHelmSchemaNotFetched NoteCode = "helm-schema-not-fetched"
	// NoteHelmReleaseDrifted: an installed release differs from its base render; the verdict
	// rests on the installed manifest.
	NoteHelmReleaseDrifted NoteCode = "helm-release-drifted"
	// NoteNoPlanDigest: the plan of live steps could not be digested, so nothing can be
	// carried out with --confirm from this review.
	NoteNoPlanDigest NoteCode = "no-plan-digest"
)

// NoteCodes lists every NoteCode, in the order docs/report.md lists them.
func NoteCodes() []NoteCode {
	return []NoteCode{NoteTierKeepsAll, NoteUnresolvedUnchanged, NoteResourceSetUnchanged, NoteEnvsubstDefault, NoteSubstitutionSourceGone, NoteHelmValuesKeepClaims,
		NoteHelmRenderedInstalled, NoteHelmReleaseCompared, NoteHelmUninstallStateless, NoteHelmSchemaNotFetched,
		NoteHelmReleaseDrifted, NoteNoPlanDigest}
}
