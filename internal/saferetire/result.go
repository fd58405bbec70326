package saferetire

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
)

// Result is everything one invocation decided; json marshals it as is and the text printer
// draws it. Its schema is documented in docs/safe-retire.md.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Envelope names the writer, its version and when it wrote the report (docs/report.md).
	report.Envelope
	// Summary counts what an operator reads first.
	Summary Summary `json:"summary"`
	// Mode is "live", "offline" or "orphans".
	Mode   string          `json:"mode"`
	Target *cluster.Target `json:"target,omitempty"`
	// Report is what the gate found (for --orphans, only the Kustomizations read and what
	// could not be); its incomplete[] are the builds and reads that failed, as gaps: the
	// verdict cannot be SAFE or CLEAN with any.
	retire.Report
	// Orphans are objects Flux applied that no Kustomization's inventory lists (--orphans).
	Orphans []retire.Orphan `json:"orphans,omitempty"`
	// Actions are the live steps carried out without --dry-run, in order.
	Actions []Action `json:"actions,omitempty"`
	// Confirm is the plan of live steps, its digest and the --confirm command bound to it:
	// live runs whose gate is SAFE only.
	Confirm *Confirmation `json:"confirm,omitempty"`
	// Verdict is SAFE, UNSAFE or UNKNOWN (ORPHANS/CLEAN for --orphans), or REFUSED when
	// --confirm names another plan than the one computed now; ExitCode maps it.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
}

// Action is one live step carried out (or refused) without --dry-run.
type Action struct {
	Step    string `json:"step"`
	Command string `json:"command"`
	Outcome string `json:"outcome"` // done, skipped, declined, stopped, refused
	Detail  string `json:"detail,omitempty"`
}

// resultAPIVersion versions the Result schema (docs/report.md): v1beta2 when its gaps were
// typed, v1beta3 when notes[] and warnings[] became typed notes and the reads that failed
// without changing the verdict moved from warnings[] to unchecked[] as gaps.
const resultAPIVersion = "saferetire.kubeforensics.dev/v1beta3"

// chartsAPIVersion versions the ChartsPullResult schema, which holds no gaps and so stayed
// at v1beta1 when the Result's incomplete[] became typed gaps (docs/report.md).
const chartsAPIVersion = "saferetire.kubeforensics.dev/v1beta1"

// APIVersion is the apiVersion of the plugin's reports, published with their schemas in
// docs/schema (docs/report.md); ChartsAPIVersion that of `charts pull`.
const (
	APIVersion       = resultAPIVersion
	ChartsAPIVersion = chartsAPIVersion
)

// toolName is the plugin's name as kubectl shows it, the report's reporter.
const toolName = "safe-retire"

// Summary counts the removals of a Result by what they risk, and what was not judged.
type Summary struct {
	// Removals are the objects the candidate drops; Unsafe those that fail the gate;
	// Persistent those that hold state a deletion loses; Pruned and Retained those Flux
	// deletes and those an opt-out keeps.
	Removals   int `json:"removals"`
	Unsafe     int `json:"unsafe"`
	Persistent int `json:"persistent"`
	Pruned     int `json:"pruned"`
	Retained   int `json:"retained"`
	// Unknown counts the tiers whose removals were not judged: not built at a revision, or
	// built from another source than the repository.
	Unknown int `json:"unknown"`
	// Orphans are the objects --orphans found; Incomplete the failed builds and reads.
	Orphans    int `json:"orphans"`
	Incomplete int `json:"incomplete"`
}

// summarise counts the removals for Summary.
func (r *Result) summarise() Summary {
	s := Summary{Removals: len(r.Removals), Unknown: len(r.Unbuilt) + len(r.NotCovered),
		Orphans: len(r.Orphans), Incomplete: len(r.Incomplete)}
	for _, rm := range r.Removals {
		if rm.Unsafe {
			s.Unsafe++
		}
		if rm.Persistent != nil {
			s.Persistent++
		}
		switch rm.Outcome {
		case retire.Pruned:
			s.Pruned++
		case retire.Retained:
			s.Retained++
		}
	}
	return s
}

// Code is the exit code: 3 when --confirm was refused (the plan is not the one reviewed), then
// UNSAFE (1) as soon as one removal is unsafe or a live step stopped, then UNKNOWN (2) when a
// build or read failed, else OK. For --orphans, leftovers are a finding (1).
func (r *Result) Code() exitcode.Code {
	for _, a := range r.Actions {
		if a.Outcome == "refused" {
			return exitcode.Usage
		}
	}
	code := r.Report.Code()
	if code == exitcode.Finding {
		return code
	}
	for _, a := range r.Actions {
		if a.Outcome == "stopped" {
			return exitcode.Finding
		}
	}
	if code != exitcode.OK {
		return code
	}
	if r.Mode == "orphans" && len(r.Orphans) > 0 {
		return exitcode.Finding
	}
	return exitcode.OK
}

// finish sets the envelope, summary and verdict fields from the content, stamped with clock's
// time (the system's when nil).
func (r *Result) finish(clock report.Clock) {
	r.APIVersion, r.Kind = resultAPIVersion, "SafeRetireResult"
	r.Sign(toolName)
	r.Stamp(clock.Now())
	if r.Removals == nil {
		r.Removals = []retire.Removal{}
	}
	if r.Kustomizations == nil {
		r.Kustomizations = []string{}
	}
	r.Summary = r.summarise()
	code := r.Code()
	r.ExitCode = int(code)
	switch {
	case code == exitcode.Usage:
		r.Verdict = "REFUSED"
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
