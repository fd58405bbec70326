// Package saferetire is one safe-retire run without its command line: a Request (the inputs of
// the run and the runtime handles it needs), Plan (the gate, or the orphans scan, with the
// digest-bound plan of live steps), Execute (carrying those steps out), the Result and its text
// printer. The command (plugins/saferetire) turns its flags into a Request; the MCP server
// builds one from a tool call's arguments. Both get the same Result for the same Request.
package saferetire

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/helmrender"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
)

// Request is the inputs of one run: what to compare, the scope, the bounds, and how live steps
// are approved. It holds plain values and the runtime handles of Runtime; no flag.
type Request struct {
	// Repo is a directory in the repository's git working tree ("" is ".").
	Repo string
	// Base and Candidate are the revisions compared ("": the merge-base with the upstream
	// default branch, else HEAD~1; and the working tree).
	Base, Candidate string
	// Path is the entry path (offline) or the root Kustomization's path (live); SourceRoot the
	// directory spec.paths are relative to. "" for both is detected.
	Path, SourceRoot string
	// PersistentKinds are more kinds that hold persistent state, as Kind or Kind.group.
	PersistentKinds []string
	// Orphans lists retained leftovers no inventory holds instead of gating a change (live only).
	Orphans bool
	// DryRun only reports. A SAFE live gate's plan of live steps is then read and digested
	// (Result.Confirm), a warning when that fails; without DryRun, Execute does it.
	DryRun bool
	// Full builds every tier at both revisions and reads no build cache.
	Full bool
	// AllowNetwork fetches remote kustomize resources and charts; without it none is fetched.
	AllowNetwork bool
	// ChartsDir holds charts pulled beforehand (helm pull output); "" for none.
	ChartsDir string
	// KubeVersion is what charts see in .Capabilities ("" is helmrender.DefaultKubeVersion).
	KubeVersion string
	// NetworkTimeout bounds one remote fetch (0 is kbuild.DefaultNetworkTimeout); Timeout the
	// gate as a whole (0: only ctx bounds it), past which the run is UNKNOWN.
	NetworkTimeout, Timeout time.Duration
	// Confirm is the digest of the reviewed plan Execute carries out without asking, refusing
	// any other; Yes carries out each step without asking (a person at a terminal chose to).
	Confirm string
	Yes     bool

	Runtime
}

// Runtime are the handles a run uses, opened by its caller.
type Runtime struct {
	// Clients reads (and, for Execute, changes) the cluster; nil is the offline gate.
	Clients *cluster.Clients
	// Target is the connection printed commands carry: Clients.Target when connected.
	Target cluster.Target
	// BuildCache and ChartCache are the opened caches; nil reads and writes none.
	BuildCache *gitops.BuildCache
	ChartCache *charts.Cache
	// RenderCache keeps HelmRelease renders between runs; nil renders every release.
	RenderCache *helmrender.Cache
	// PlanDir keeps the plans digested, so a refused Confirm names what changed; "" for none.
	PlanDir string
	// Clock stamps the report; nil is the system clock.
	Clock report.Clock
	// In is where a person answers before each live step (Execute without Confirm or Yes).
	In io.Reader
	// Log receives progress, prompts and warnings that are not the result; nil discards them.
	Log io.Writer
}

// InputError is a Request field holding a value the run cannot take: bad input (exit 3).
type InputError struct {
	// Field is the Request field; Value what it held.
	Field, Value string
	Err          error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s %q: %v", e.Field, e.Value, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// Validate checks the values a caller may get wrong, as given (Plan gives zero values their
// meaning first); it makes no request. Its error is an *InputError with exit code 3.
func (req *Request) Validate() error {
	if err := helmrender.CheckKubeVersion(req.KubeVersion); err != nil {
		return exitcode.WithCode(exitcode.Usage, &InputError{Field: "KubeVersion", Value: req.KubeVersion, Err: err})
	}
	for _, k := range req.PersistentKinds {
		if _, err := retire.NewKinds(k); err != nil {
			return exitcode.WithCode(exitcode.Usage, &InputError{Field: "PersistentKinds", Value: k, Err: err})
		}
	}
	return nil
}

// withDefaults is req with its zero values given their meaning.
func (req Request) withDefaults() *Request {
	if req.Repo == "" {
		req.Repo = "."
	}
	if req.KubeVersion == "" {
		req.KubeVersion = helmrender.DefaultKubeVersion
	}
	if req.NetworkTimeout <= 0 {
		req.NetworkTimeout = kbuild.DefaultNetworkTimeout
	}
	if req.Clients != nil {
		req.Target = req.Clients.Target
	}
	if req.In == nil { // nobody to answer: every step asked about is declined
		req.In = strings.NewReader("")
	}
	return &req
}

// log is where progress and warnings go.
func (req *Request) log() io.Writer {
	if req.Log == nil {
		return io.Discard
	}
	return req.Log
}
