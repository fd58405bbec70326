package chartrender

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/kubeforensics/suite/internal/version"
)

// A render runs in a render worker: an executable whose main calls ServeWorker first, started
// by internal/helmrender with WorkerEnv set, its request on standard input and its answer on
// standard output (the tag line, then a gob-encoded Response).

// WorkerEnv names the environment variable that makes an executable a render worker; its
// value is WorkerTag and the worker's memory bound in bytes.
const WorkerEnv = "KUBEFORENSICS_HELMRENDER_WORKER"

// WorkerTag starts WorkerEnv's value and the worker's answer: a process that is not a worker
// of this protocol answers otherwise, and is reported, not believed. Version 2: the request
// is a Spec, not a HelmRelease and the gate's options. The answer's tag line goes on, after
// one space, with the worker's Build: a gate uses a worker only of its own build
// (internal/helmrender's Worker).
const WorkerTag = "kubeforensics-helmrender-worker/2"

// Build names the build of this executable as a worker reports it and a gate compares it:
// the release version and the commit (internal/version), as "<version>@<commit>". A build
// outside a release ("dev") may have no commit (-buildvcs=false, a copy without .git) or one
// of a modified tree, so two dev builds of different code would report the same; its Build
// goes on with "+src." and the digest of what renders (RenderCode): two dev executables match
// only when they render with the same code. Two executables of one release, or of one `make
// build` of one tree, have the same Build.
func Build() string {
	return BuildOf(version.Get())
}

// BuildOf is Build for the build information i (RenderCode the running executable's).
func BuildOf(i version.Info) string {
	b := i.Version + "@" + i.Commit
	if i.Version == "dev" {
		b += "+src." + RenderCode()
	}
	return b
}

// renderSources are this package's own files, the code every render runs (the worker's main
// only calls ServeWorker); TestRenderSourcesAreThePackage holds the list to the package.
//
//go:embed memlimit_linux.go memlimit_other.go postrender.go protocol.go render.go resources.go worker.go
var renderSources embed.FS

// RenderCode is the digest (16 hex digits) of what a render of this executable runs: this
// package's sources and the Go toolchain. Its dependencies are not in it: a test binary
// records none (debug.ReadBuildInfo), and it must match the worker built from its tree. So two
// dev builds of the same render sources whose go.mod differs (a Helm bump) are not told
// apart; releases are, by version and commit.
func RenderCode() string {
	return codeDigest(renderSources, runtime.Version())
}

// codeDigest digests every file of fsys (name and content, in name order) and extra.
func codeDigest(fsys fs.FS, extra string) string {
	h := sha256.New()
	names, _ := fs.Glob(fsys, "*")
	for _, n := range names {
		b, _ := fs.ReadFile(fsys, n)
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	h.Write([]byte(extra))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// SplitTag reads a worker's tag line (without its newline): ok when it is this protocol's,
// and the build the worker reported ("" when it reported none).
func SplitTag(line string) (build string, ok bool) {
	tag, build, _ := strings.Cut(line, " ")
	return build, tag == WorkerTag
}

// WorkerInitGC is the worker's GOGC while Go initialises its packages, before main: at the
// default the collector ran three times over a heap initialisation only grows (4–5 MB), at
// 150 once. ServeWorker sets the collector back to Go's default (100) before it bounds its
// memory or reads anything, and runs a collection first if none ran: so a chart's render runs
// under the collector as it did before, and the collector's first cycle, which makes its own
// structures, is never under the bound (at 400 none ran in initialisation, and a render
// stopped by a 64 MiB bound then crashed in the collector instead of ending "out of memory":
// TestMemoryBound in internal/helmrender). Unlike GOGC=off, the collector is never off.
const WorkerInitGC = 150

// Request is what the worker renders.
type Request struct {
	Spec   Spec           `json:"spec"`
	Chart  *WireChart     `json:"chart"`
	Values map[string]any `json:"values"`
}

// WireChart is a chart with its subcharts, which chart.Chart does not marshal.
type WireChart struct {
	Chart        *chart.Chart `json:"chart"`
	Dependencies []*WireChart `json:"dependencies,omitempty"`
}

// ToWire is c with its subcharts, for a Request.
func ToWire(c *chart.Chart) *WireChart {
	w := &WireChart{Chart: c}
	for _, d := range c.Dependencies() {
		w.Dependencies = append(w.Dependencies, ToWire(d))
	}
	return w
}

// FromWire is the chart of w with its subcharts attached.
func FromWire(w *WireChart) (*chart.Chart, error) {
	if w == nil || w.Chart == nil {
		return nil, errors.New("no chart")
	}
	c := w.Chart
	for _, d := range w.Dependencies {
		dc, err := FromWire(d)
		if err != nil {
			return nil, err
		}
		c.AddDependency(dc)
	}
	return c, nil
}

// Response is the worker's answer: the output, or the render's error, or the bound that
// stopped it.
type Response struct {
	Output *Output
	Err    string
	Bound  *BoundError
}
