package chain

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/lint"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sourceroot"
)

// resultAPIVersion versions the live Result schema and repoAPIVersion the RepoResult one
// (docs/report.md). The live result moved to v1beta2 when reconciliations in progress left
// rootCauses for progressing, a revision being applied stopped being a revisionLag, and HEALTHY
// came to need the controllers found alive; to v1beta3 when its gaps were typed; and to v1beta4
// when warnings[] (lines) became unchecked[] (gaps). The --repo result moved to v1beta3 when
// undecoded[] and unrendered[] (lines) became gaps.
const (
	resultAPIVersion = "fluxchain.kubeforensics.dev/v1beta4"
	repoAPIVersion   = "fluxchain.kubeforensics.dev/v1beta3"
)

// APIVersion is the apiVersion of the plugin's live reports and RepoAPIVersion of its --repo
// reports, published with their schemas in docs/schema (docs/report.md).
const (
	APIVersion     = resultAPIVersion
	RepoAPIVersion = repoAPIVersion
)

// toolName is the plugin's name as kubectl shows it, the report's reporter.
const toolName = "flux-chain"

// Summary counts a live chain: its Kustomizations by state, its tiers, what was found and
// what could not be read.
type Summary struct {
	Kustomizations int `json:"kustomizations"`
	Tiers          int `json:"tiers"`
	Ready          int `json:"ready"`
	Failing        int `json:"failing"`
	Waiting        int `json:"waiting"`
	RootCauses     int `json:"rootCauses"`
	Findings       int `json:"findings"`
	Incomplete     int `json:"incomplete"`
}

// RepoSummary counts what --repo found: the chain the repository declares, its lint findings
// (Failing those at or above --fail-on) and the tiers that could not be judged.
type RepoSummary struct {
	Kustomizations int `json:"kustomizations"`
	Tiers          int `json:"tiers"`
	Findings       int `json:"findings"`
	Failing        int `json:"failing"`
	Suppressed     int `json:"suppressed"`
	// NotJudged counts the tiers that did not build, are built from another source, or whose
	// Flux object did not decode.
	NotJudged  int `json:"notJudged"`
	Incomplete int `json:"incomplete"`
}

// Result is everything flux-chain found, in the one shape every output format prints: the
// analysed chain plus the cluster it is about and the reads that failed.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Envelope names the writer, its version and when it wrote the report (docs/report.md).
	report.Envelope
	Target cluster.Target `json:"target"`
	// Summary counts what an operator reads first.
	Summary Summary `json:"summary"`
	// Namespace is the namespace whose Kustomizations were listed; "" means all namespaces.
	Namespace string `json:"namespace"`
	// Focus is the Kustomization (namespace/name) the view was narrowed to, if any.
	Focus string `json:"focus,omitempty"`
	flux.Chain
	// Incomplete are the reads of Flux objects that failed: the result is UNKNOWN (exit 2).
	Incomplete []report.Gap `json:"incomplete,omitempty"`
	// Unchecked are the reads about a root cause's objects that failed (API discovery, the
	// object a health check waits on, the explanation of an object being deleted), as gaps:
	// noted, they do not change the verdict.
	Unchecked []report.Gap `json:"unchecked"`
	// Liveness is what was found of the controllers that write the chain's status (their
	// Deployments and pods) and of statuses older than their interval explains; nil when not
	// looked at (a result not made by Plan).
	Liveness *flux.Liveness `json:"liveness,omitempty"`
	// FailOnProgressing is --fail-on-progressing: a reconciliation in progress fails the run.
	FailOnProgressing bool `json:"failOnProgressing,omitempty"`
	// Verdict is HEALTHY, PROGRESSING, FAILING, STALE or UNKNOWN; ExitCode is the process exit
	// code it maps to (docs/exit-codes.md).
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// Code is the exit code of the result: UNKNOWN when a controller the chain needs is down or a
// status is stale (STALE: what the chain says cannot be trusted) or a list failed; FINDING when
// a tier is not Ready or anything was found; UNKNOWN when the chain would be healthy but its
// controllers' liveness could not be verified; FINDING for a reconciliation in progress with
// --fail-on-progressing; OK otherwise.
func (r *Result) Code() exitcode.Code {
	switch {
	case r.Liveness.IsStale(), len(r.Incomplete) > 0:
		return exitcode.Unknown
	case !r.Healthy():
		return exitcode.Finding
	case r.Liveness != nil && !r.Liveness.Verified():
		return exitcode.Unknown
	case len(r.Progressing) > 0 && r.FailOnProgressing:
		return exitcode.Finding
	}
	return exitcode.OK
}

// verdict names the result's code: STALE and PROGRESSING say more than the code does.
func (r *Result) verdict(code exitcode.Code) string {
	switch {
	case r.Liveness.IsStale():
		return "STALE"
	case code == exitcode.Finding && r.Healthy():
		return "PROGRESSING" // --fail-on-progressing
	case code == exitcode.OK && len(r.Progressing) > 0:
		return "PROGRESSING"
	}
	return Verdict(code, "FAILING", "HEALTHY")
}

// finish sets the envelope, summary and verdict fields from the content, stamped with clock's
// time (the system's when nil).
func (r *Result) finish(clock report.Clock) {
	r.APIVersion, r.Kind = resultAPIVersion, "FluxChainResult"
	r.Sign(toolName)
	r.Stamp(clock.Now())
	r.settle()
}

// settle sets the summary and verdict fields from the content.
func (r *Result) settle() {
	r.Summary = Summary{Kustomizations: len(r.Kustomizations), Tiers: len(r.Tiers), RootCauses: len(r.RootCauses),
		Findings: len(r.Findings), Incomplete: len(r.Incomplete)}
	for _, n := range r.Kustomizations {
		switch n.State {
		case flux.Ready:
			r.Summary.Ready++
		case flux.Failing:
			r.Summary.Failing++
		case flux.Waiting:
			r.Summary.Waiting++
		}
	}
	code := r.Code()
	r.ExitCode, r.Verdict = int(code), r.verdict(code)
}

// RepoResult is what --repo found: the chain the repository declares, drawn as live mode draws
// a cluster's, and the lint findings.
type RepoResult struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Envelope names the writer, its version and when it wrote the report (docs/report.md).
	report.Envelope
	// Summary counts what an operator reads first.
	Summary RepoSummary `json:"summary"`
	// Repo is the repository's top level; Path the entry path built first, relative to the
	// source root Layout names (files in findings are relative to the top level).
	Repo string `json:"repo"`
	// Commit is the commit checked out (HEAD) when the lint ran; the files read are the working
	// tree's, which may hold changes not yet committed.
	Commit string             `json:"commit,omitempty"`
	Path   string             `json:"path"`
	Layout *sourceroot.Layout `json:"layout,omitempty"`
	flux.Chain
	// Lint are the findings that stand, one per cause; Suppressed those a suppression
	// silenced, each with its reason.
	Lint       []lint.Finding `json:"lint"`
	Suppressed []lint.Finding `json:"suppressed"`
	// Config is the configuration file read, if any; DeclaredCRDs counts the CRD groups and
	// kinds it and the flags declare installed outside Flux.
	Config       string `json:"config,omitempty"`
	DeclaredCRDs int    `json:"declaredCRDs,omitempty"`
	// BuildFailures are the tiers whose path did not build: their objects were not judged.
	BuildFailures []lint.BuildFailure `json:"buildFailures"`
	// NotCovered are the tiers built from another source than this repository, each a gap
	// (op build, reason not-read, subject the Kustomization, error why).
	NotCovered []report.Gap `json:"notCovered,omitempty"`
	// Undecoded are Flux objects whose spec did not decode: the chain holds what could be read
	// of them, and the verdict cannot be CLEAN.
	Undecoded []report.Gap `json:"undecoded,omitempty"`
	// Unrendered are the HelmReleases whose chart could not be rendered (--charts,
	// --chart-cache, --allow-network), as gaps: the CRDs they install are not known, and
	// crd-order notes those CRDs as not verifiable.
	Unrendered []report.Gap `json:"unrendered,omitempty"`
	// FailOn is the severity at which a finding fails the run.
	FailOn lint.Severity `json:"failOn"`
	// Diff is what the working tree changes over the base revision, with --base only
	// (diff.go); with its failOn "new", only the added findings fail the run.
	Diff *RepoDiff `json:"diff,omitempty"`
	// Live is the comparison with a cluster, with --live only (live.go).
	Live *LiveComparison `json:"live,omitempty"`
	// Incomplete are the reads of the cluster --live made that failed: the verdict cannot be
	// CLEAN.
	Incomplete []report.Gap `json:"incomplete,omitempty"`
	// Verdict is FINDINGS, UNKNOWN or CLEAN; ExitCode is the process exit code it maps to.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// Code is the exit code of the result: FINDING for findings at or above FailOn, else UNKNOWN
// when a tier was not judged (not built, or not covered: built from another source), a Flux
// object did not decode or a live read failed (Incomplete), else OK.
func (r *RepoResult) Code() exitcode.Code {
	switch {
	case lint.AtLeast(r.failing(), r.FailOn) > 0:
		return exitcode.Finding
	case len(r.BuildFailures) > 0, len(r.NotCovered) > 0, len(r.Undecoded) > 0, len(r.Incomplete) > 0:
		return exitcode.Unknown
	}
	return exitcode.OK
}

// finish sets the envelope, summary and verdict fields from the content, stamped with clock's
// time (the system's when nil).
func (r *RepoResult) finish(clock report.Clock) {
	r.APIVersion, r.Kind = repoAPIVersion, "FluxChainRepoResult"
	r.Sign(toolName)
	r.Stamp(clock.Now())
	r.Summary = RepoSummary{Kustomizations: len(r.Kustomizations), Tiers: len(r.Tiers), Findings: len(r.Lint),
		Failing: lint.AtLeast(r.failing(), r.FailOn), Suppressed: len(r.Suppressed),
		NotJudged: len(r.BuildFailures) + len(r.NotCovered) + len(r.Undecoded), Incomplete: len(r.Incomplete)}
	code := r.Code()
	r.ExitCode, r.Verdict = int(code), Verdict(code, "FINDINGS", "CLEAN")
}

// Verdict names code: UNKNOWN, finding for a finding, ok otherwise.
func Verdict(code exitcode.Code, finding, ok string) string {
	switch code {
	case exitcode.Unknown:
		return "UNKNOWN"
	case exitcode.Finding:
		return finding
	}
	return ok
}
