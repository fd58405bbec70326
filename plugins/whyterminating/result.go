package whyterminating

import (
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/output"
)

// Result is everything one invocation found; json and yaml marshal it as is, and the text
// printer draws it. Its schema is documented in docs/why-terminating.md.
type Result struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Target     cluster.Target `json:"target"`
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
	Incomplete []output.Gap `json:"incomplete,omitempty"`
	// DiscoveryFailures lists API group versions the server could not describe.
	DiscoveryFailures []kinds.GroupFailure `json:"discoveryFailures,omitempty"`
	// Unchecked lists checks that could not be made and that cannot change this result (the
	// APIServices' availability, for one object's explanation).
	Unchecked []string `json:"unchecked,omitempty"`
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

// resultAPIVersion versions the Result schema.
const resultAPIVersion = "whyterminating.kubeforensics.dev/v1alpha1"

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

// finish sets the verdict fields from the content.
func (r *Result) finish() {
	r.APIVersion, r.Kind = resultAPIVersion, "WhyTerminatingResult"
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
