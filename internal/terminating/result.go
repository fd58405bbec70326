package terminating

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// Result is everything one invocation found; json and yaml marshal it as is, and the text
// printer draws it. Its schema is documented in docs/why-terminating.md.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Envelope names the writer, its version and when it wrote the report (docs/report.md).
	report.Envelope
	Target cluster.Target `json:"target"`
	// Summary counts what an operator reads first.
	Summary Summary `json:"summary"`
	// Scope is what was examined: an object (`persistentvolumeclaims/headlamp -n headlamp`),
	// `namespace headlamp` for a sweep of one namespace, or `cluster` for -A.
	Scope string `json:"scope"`
	// Objects are the Terminating objects explained, sorted by reference. A single object
	// that is not Terminating appears with terminating: false.
	Objects []*finalizers.Explanation `json:"objects"`
	// Shadowed names same-named types of other groups the core group won over.
	Shadowed []string `json:"shadowedTypes,omitempty"`
	// Incomplete lists the reads a sweep missed: each resource type it could not list ("listing
	// TYPE") and each API group version discovery could not describe; their objects are unknown.
	Incomplete []report.Gap `json:"incomplete,omitempty"`
	// DiscoveryFailures lists API group versions the server could not describe.
	DiscoveryFailures []kinds.GroupFailure `json:"discoveryFailures,omitempty"`
	// Unchecked lists checks that could not be made and that cannot change this result (the
	// APIServices' availability, for one object's explanation).
	Unchecked []report.Gap `json:"unchecked,omitempty"`
	// Verdict is STUCK, DELETING (every Terminating object's deletion progresses on its own),
	// CLEAR or UNKNOWN; ExitCode is the process exit code it maps to.
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
	// Requests counts the LIST requests the sweep made.
	Requests int64 `json:"listRequests,omitempty"`

	// swept is set for sweeps, which cannot see the objects of groups discovery missed (so
	// those are in Incomplete); one object's explanation does not depend on them.
	swept bool
}

// Summary counts the objects of a Result by what holds them.
type Summary struct {
	// Objects are the objects explained; Terminating those with a deletionTimestamp, of which
	// Stuck have nothing showing progress and Deleting progress on their own.
	Objects     int `json:"objects"`
	Terminating int `json:"terminating"`
	Stuck       int `json:"stuck"`
	Deleting    int `json:"deleting"`
	// Blockers counts the concrete objects that block the finalizers of the objects explained
	// (a blocker's own explanation not counted again).
	Blockers int `json:"blockers"`
	// Incomplete counts the failed reads that make the result UNKNOWN: the sweep's and each
	// finalizer's.
	Incomplete int `json:"incomplete"`
}

// resultAPIVersion versions the Result schema (docs/report.md).
const resultAPIVersion = "whyterminating.kubeforensics.dev/v1beta4"

// APIVersion is the apiVersion of the plugin's reports, published with their schemas in
// docs/schema (docs/report.md).
const APIVersion = resultAPIVersion

// toolName is the plugin's name as kubectl shows it, the report's reporter.
const toolName = "why-terminating"

// Code is the exit code of the result: UNKNOWN when any read that could hide a blocker failed,
// FINDING when an object is Terminating and nothing shows its deletion progressing, OK
// otherwise (nothing Terminating, or every deletion on course).
func (r *Result) Code() exitcode.Code {
	if r.incomplete() {
		return exitcode.Unknown
	}
	for _, e := range r.Objects {
		if e.Stuck() {
			return exitcode.Finding
		}
	}
	return exitcode.OK
}

// deleting reports whether any object explained is Terminating (so an OK code means DELETING).
func (r *Result) deleting() bool {
	for _, e := range r.Objects {
		if e.Terminating {
			return true
		}
	}
	return false
}

// Swept reports whether the result is a sweep of a namespace or of the cluster, whose
// completeness depends on every group discovery described; one object's does not.
func (r *Result) Swept() bool { return r.swept }

// ReadsFailed reports whether any read that could hide a blocker failed (the result is
// UNKNOWN): the sweep's or a finalizer's.
func (r *Result) ReadsFailed() bool { return r.incomplete() }

func (r *Result) incomplete() bool {
	if len(r.Incomplete) > 0 {
		return true
	}
	for _, e := range r.Objects {
		if e.Incomplete() {
			return true
		}
	}
	return false
}

// summarise counts the objects for Summary.
func (r *Result) summarise() Summary {
	s := Summary{Objects: len(r.Objects), Incomplete: len(r.Incomplete)}
	for _, e := range r.Objects {
		switch {
		case e.Stuck():
			s.Stuck++
		case e.Terminating:
			s.Deleting++
		}
		if e.Terminating {
			s.Terminating++
		}
		for _, f := range e.Finalizers {
			s.Blockers += len(f.Blockers)
			s.Incomplete += len(f.Incomplete)
		}
	}
	return s
}

// finish sets the envelope, summary and verdict fields from the content, stamped with clock's
// time (the system's when nil).
func (r *Result) finish(clock report.Clock) {
	r.APIVersion, r.Kind = resultAPIVersion, "WhyTerminatingResult"
	r.Sign(toolName)
	r.Stamp(clock.Now())
	r.Summary = r.summarise()
	code := r.Code()
	r.ExitCode = int(code)
	switch code {
	case exitcode.Unknown:
		r.Verdict = "UNKNOWN"
	case exitcode.Finding:
		r.Verdict = "STUCK"
	default:
		if r.deleting() {
			r.Verdict = "DELETING"
			break
		}
		r.Verdict = "CLEAR"
	}
}
