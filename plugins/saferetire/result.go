package saferetire

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/retire"
)

// Result is everything one invocation decided; json marshals it as is and the text printer
// draws it. Its schema is documented in docs/safe-retire.md.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Mode is "live", "offline" or "orphans".
	Mode   string          `json:"mode"`
	Target *cluster.Target `json:"target,omitempty"`
	Repo   string          `json:"repo,omitempty"`
	// Base and Candidate name the revisions compared; BaseHow says how the base was chosen.
	Base      Revision `json:"base"`
	Candidate Revision `json:"candidate"`
	BaseHow   string   `json:"baseHow,omitempty"`
	// Layout is the source root and entry path the repository was built from, and how each
	// was chosen.
	Layout *gitops.Layout `json:"layout,omitempty"`
	// Kustomizations are the Flux Kustomizations compared, namespace/name.
	Kustomizations []string `json:"kustomizations"`
	// NotCovered are Kustomizations built from another source than this repository (a
	// tenant's own): their removals are not judged here.
	NotCovered []string `json:"notCovered,omitempty"`
	// Unbuilt are the tiers that did not build on a side (a remote resource offline, a broken
	// kustomization): their removals are UNKNOWN, never judged unsafe.
	Unbuilt []Unbuilt `json:"unbuilt,omitempty"`
	// Removals are every object a candidate drops, sorted by Kustomization and inventory id.
	Removals []retire.Removal `json:"removals"`
	// Orphans are objects Flux applied that no Kustomization's inventory lists (--orphans).
	Orphans []Orphan `json:"orphans,omitempty"`
	// Incomplete lists builds and reads that failed: the verdict cannot be SAFE with any.
	Incomplete []string `json:"incomplete,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// Actions are the live steps carried out without --dry-run, in order.
	Actions []Action `json:"actions,omitempty"`
	// Verdict is SAFE, UNSAFE or UNKNOWN (ORPHANS/CLEAN for --orphans); ExitCode maps it.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// Unbuilt is one Kustomization's path that did not build at one revision.
type Unbuilt struct {
	Kustomization string `json:"kustomization"`
	// Side is "base" or "candidate".
	Side  string `json:"side"`
	Path  string `json:"path"`
	Error string `json:"error"`
	// RemoteURLs are the remote resources and bases an offline build could not fetch
	// (--allow-network fetches them).
	RemoteURLs []string `json:"remoteURLs,omitempty"`
}

// Revision is one side of the comparison.
type Revision struct {
	// Rev is the revision as given ("" for the working tree); Commit what it resolved to.
	Rev    string `json:"rev,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// String names the revision for people.
func (r Revision) String() string {
	switch {
	case r.Rev == "" && r.Commit == "":
		return "the working tree"
	case r.Commit == "" || r.Commit == r.Rev:
		return r.Rev
	}
	return r.Rev + " (" + shortCommit(r.Commit) + ")"
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// Orphan is an object kustomize-controller applied that no Kustomization lists any more.
type Orphan struct {
	Object retire.Ref `json:"object"`
	ID     string     `json:"id"`
	// Kustomization is the owner its labels still name.
	Kustomization string `json:"kustomization"`
	Age           string `json:"age"`
	Protected     bool   `json:"protected"`
}

// Action is one live step carried out (or refused) without --dry-run.
type Action struct {
	Step    string `json:"step"`
	Command string `json:"command"`
	Outcome string `json:"outcome"` // done, skipped, declined, stopped
	Detail  string `json:"detail,omitempty"`
}

// resultAPIVersion versions the Result schema.
const resultAPIVersion = "saferetire.kubeforensics.dev/v1alpha1"

// Code is the exit code: UNSAFE (1) as soon as one removal is unsafe — that holds whatever the
// failed reads would have shown — then UNKNOWN (2) when a build or read failed, else OK.
// For --orphans, leftovers are a finding (1).
func (r *Result) Code() exitcode.Code {
	for _, rm := range r.Removals {
		if rm.Unsafe {
			return exitcode.Finding
		}
	}
	for _, a := range r.Actions {
		if a.Outcome == "stopped" {
			return exitcode.Finding
		}
	}
	if len(r.Incomplete) > 0 || len(r.Unbuilt) > 0 {
		return exitcode.Unknown
	}
	if r.Mode == "orphans" && len(r.Orphans) > 0 {
		return exitcode.Finding
	}
	return exitcode.OK
}

// finish sets the verdict fields from the content.
func (r *Result) finish() {
	r.APIVersion, r.Kind = resultAPIVersion, "SafeRetireResult"
	if r.Removals == nil {
		r.Removals = []retire.Removal{}
	}
	if r.Kustomizations == nil {
		r.Kustomizations = []string{}
	}
	code := r.Code()
	r.ExitCode = int(code)
	switch {
	case code == exitcode.Unknown:
		r.Verdict = "UNKNOWN"
	case r.Mode == "orphans" && code == exitcode.Finding:
		r.Verdict = "ORPHANS"
	case r.Mode == "orphans":
		r.Verdict = "CLEAN"
	case code == exitcode.Finding:
		r.Verdict = "UNSAFE"
	default:
		r.Verdict = "SAFE"
	}
}
