package helmrender

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// A render runs in a child process: this executable started again as a render worker
// (worker.go), its memory bounded before it reads anything (RLIMIT_DATA on Linux, and Go's
// soft memory limit), killed at the deadline or when the run stops, its answer read up to the
// output bound. A chart's templates can loop (`until`), build huge strings (`repeat`) or
// double through nested `include`s: in this process nothing could stop them, and a render
// abandoned at its deadline would go on allocating.
//
// Every executable that renders calls ServeWorker first in main, and every test binary whose
// tests render calls it first in TestMain.

// WorkerEnv names the environment variable that makes this executable a render worker; its
// value is workerTag and the worker's memory bound in bytes.
const WorkerEnv = "KUBEFORENSICS_HELMRENDER_WORKER"

// workerTag starts WorkerEnv's value and the worker's answer: a process that is not a worker
// of this protocol answers otherwise, and is reported, not believed.
const workerTag = "kubeforensics-helmrender-worker/1"

// workerInitGC is the worker's GOGC while Go initialises its packages, before main: at the
// default the collector ran three times over a heap initialisation only grows (4–5 MB), at
// 150 once. A worker's start with the request of a warm gate took about 22 ms of CPU, 19–20
// ms at 150 (`perf stat`, 5 × 30 runs alternated, load 8–11, 2026-12-03). ServeWorker sets the
// collector back to Go's default (100) before it bounds its memory or reads anything, and
// runs a collection first if none ran: so a chart's render runs under the collector as it did
// before, and the collector's first cycle, which makes its own structures, is never under the
// bound (at 400 none ran in initialisation, and a render stopped by a 64 MiB bound then
// crashed in the collector instead of ending "out of memory": TestMemoryBound). Unlike
// GOGC=off, the collector is never off.
const workerInitGC = 150

// stderrBytes bounds what is kept of a worker's standard error: enough to tell why it died.
const stderrBytes = 64 << 10

// request is what the worker renders.
type request struct {
	HelmRelease *helmv2.HelmRelease `json:"helmRelease"`
	Chart       *wireChart          `json:"chart"`
	Values      map[string]any      `json:"values"`
	Options     Options             `json:"options"`
}

// wireChart is a chart with its subcharts, which chart.Chart does not marshal.
type wireChart struct {
	Chart        *chart.Chart `json:"chart"`
	Dependencies []*wireChart `json:"dependencies,omitempty"`
}

func toWire(c *chart.Chart) *wireChart {
	w := &wireChart{Chart: c}
	for _, d := range c.Dependencies() {
		w.Dependencies = append(w.Dependencies, toWire(d))
	}
	return w
}

func fromWire(w *wireChart) (*chart.Chart, error) {
	if w == nil || w.Chart == nil {
		return nil, errors.New("no chart")
	}
	c := w.Chart
	for _, d := range w.Dependencies {
		dc, err := fromWire(d)
		if err != nil {
			return nil, err
		}
		c.AddDependency(dc)
	}
	return c, nil
}

// response is the worker's answer: the output, or the render's error, or the bound that
// stopped it.
type response struct {
	Output *output
	Err    string
	Bound  *BoundError
}

// renderIsolated renders in a render worker and reads its answer.
func renderIsolated(ctx context.Context, hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*output, error) {
	opts = limits(opts)
	if os.Getenv(WorkerEnv) != "" {
		return nil, errors.New("a render worker does not start another")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the render process: this executable: %w", err)
	}
	in, err := json.Marshal(request{HelmRelease: hr, Chart: toWire(c), Values: vals, Options: opts})
	if err != nil {
		return nil, fmt.Errorf("the render process: its input: %w", err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var args []string
	if testing.Testing() {
		// A test binary whose TestMain lacks the hook must not run its tests as a worker.
		args = []string{"-test.run=^$", "-test.bench=^$"}
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = workerEnv(opts.MaxMemory)
	cmd.Stdin = bytes.NewReader(in)
	stdout := &capped{max: len(workerTag) + 1 + opts.MaxBytes + 1<<20, full: cancel}
	stderr := &capped{max: stderrBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	switch {
	case stdout.over:
		return nil, &BoundError{Bound: BoundOutput, Detail: fmt.Sprintf("its answer passed %d bytes, more than the %d a release may render", stdout.max, opts.MaxBytes)}
	case parent.Err() != nil:
		return nil, fmt.Errorf("the render was stopped: %w", context.Cause(parent))
	case ctx.Err() != nil:
		return nil, &BoundError{Bound: BoundTime, Detail: fmt.Sprintf("not rendered within %s; its process was killed", opts.Timeout)}
	case outOfMemory(stderr.String()):
		return nil, &BoundError{Bound: BoundMemory, Detail: fmt.Sprintf("its process needed more than the %d MiB a render may use, and was stopped", opts.MaxMemory>>20)}
	}
	res, err := readAnswer(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("the render process (%s) %v%s: %w", exe, exitText(runErr), fatal(stderr.String()), err)
	}
	switch {
	case res.Bound != nil:
		return nil, res.Bound
	case res.Err != "":
		return nil, errors.New(res.Err)
	case res.Output == nil:
		return nil, errors.New("Helm returned no release")
	}
	return res.Output, nil
}

// workerEnv is the worker's whole environment: the worker variable, GOMAXPROCS, GOGC at
// workerInitGC, and TZ (a chart's `now`) and GOCOVERDIR (coverage of test runs) when set.
// Nothing else of this process's environment, credentials included, reaches a chart's render.
func workerEnv(maxMemory int64) []string {
	// Two threads render as fast as more, and each thread's stack is address space bounded.
	env := []string{WorkerEnv + "=" + workerTag + ":" + strconv.FormatInt(maxMemory, 10), "GOMAXPROCS=2",
		"GOGC=" + strconv.Itoa(workerInitGC)}
	for _, k := range []string{"TZ", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// readAnswer reads the worker's tag line and its gob-encoded response.
func readAnswer(b []byte) (*response, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	line, err := r.ReadString('\n')
	if err != nil || strings.TrimSuffix(line, "\n") != workerTag {
		return nil, errors.New("did not answer as a render worker (does main, or a test binary's TestMain, call helmrender.ServeWorker first?)")
	}
	res := &response{}
	if err := gob.NewDecoder(r).Decode(res); err != nil {
		return nil, fmt.Errorf("its answer: %w", err)
	}
	return res, nil
}

// outOfMemory tells, from a Go process's standard error, that it died for want of memory:
// the runtime's "out of memory", or a failed mmap or thread creation (ENOMEM).
func outOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "errno=12"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// fatal quotes the Go runtime's "fatal error:" line from a worker's standard error, if any.
func fatal(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "fatal error:") || strings.HasPrefix(line, "panic:") {
			return fmt.Sprintf(" (%q)", line)
		}
	}
	return ""
}

func exitText(err error) string {
	if err == nil {
		return "exited"
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return "ended (" + ee.ProcessState.String() + ")"
	}
	return "failed (" + err.Error() + ")"
}

// capped keeps up to max bytes written to it; past that it drops the rest, sets over and
// calls full (which kills the writer).
type capped struct {
	bytes.Buffer
	max  int
	over bool
	full func()
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); len(p) > room {
		c.Buffer.Write(p[:max(room, 0)])
		if !c.over && c.full != nil {
			c.full()
		}
		c.over = c.full != nil
		return len(p), nil
	}
	return c.Buffer.Write(p)
}
