package helmrender

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// A render runs in a child process, a render worker (internal/chartrender: WorkerExe beside
// this executable, of its build, else this executable started again: Worker), its memory bounded before it reads anything (RLIMIT_DATA on Linux, and Go's
// soft memory limit), killed at the deadline or when the run stops, its answer read up to the
// output bound. A chart's templates can loop (`until`), build huge strings (`repeat`) or
// double through nested `include`s: in this process nothing could stop them, and a render
// abandoned at its deadline would go on allocating.
//
// Every executable that renders calls ServeWorker first in main, and every test binary whose
// tests render calls it first in TestMain: without WorkerExe beside it, it is the worker.

// ServeWorker makes this process a render worker when WorkerEnv says so
// (chartrender.ServeWorker): main calls it first and exits with code when ok.
func ServeWorker(getenv func(string) string, in io.Reader, out io.Writer) (code int, ok bool) {
	return chartrender.ServeWorker(getenv, in, out)
}

// WorkerEnv names the environment variable that makes an executable a render worker.
const WorkerEnv = chartrender.WorkerEnv

// WorkerExeEnv names the environment variable that, when set, names the render worker
// executable to start (a path): for tests and for installs that keep it elsewhere. Unset,
// the worker is WorkerExe beside this executable when it is there, else this executable.
const WorkerExeEnv = "KUBEFORENSICS_HELMRENDER_EXE"

// WorkerExe is the name of the render worker executable (cmd/kubeforensics-helmrender),
// looked for beside this one: it imports only internal/chartrender, so it starts in about
// half the CPU time of a plugin, which links Helm's action package, client-go's clients and
// kubectl's.
const WorkerExe = "kubeforensics-helmrender"

// stderrBytes bounds what is kept of a worker's standard error: enough to tell why it died.
const stderrBytes = 64 << 10

// renderIsolated renders in a render worker and reads its answer. An outcome of a found worker
// that the Worker does not take (not yet confirmed, and not an answer of this build) is
// rendered again in this executable.
func renderIsolated(ctx context.Context, hr *helmv2.HelmRelease, c *chart.Chart, vals map[string]any, opts Options) (*output, error) {
	opts = limits(opts)
	if os.Getenv(WorkerEnv) != "" {
		return nil, errors.New("a render worker does not start another")
	}
	w := opts.Worker
	if w == nil {
		w = NewWorker(nil)
	}
	exe, self, err := w.get()
	if err != nil {
		return nil, fmt.Errorf("the render process: %w", err)
	}
	in, err := json.Marshal(chartrender.Request{Spec: spec(hr, opts), Chart: chartrender.ToWire(c), Values: vals})
	if err != nil {
		return nil, fmt.Errorf("the render process: its input: %w", err)
	}
	p, err := w.take(ctx, exe, self, opts)
	if err != nil {
		return nil, err
	}
	res, build, err := p.answer(ctx, in, opts)
	if !self && (err == nil || ctx.Err() == nil) { // an answer is always checked; a stopped run is not judged
		var nw *notWorkerError
		bound := isBound(err)
		answer := !errors.As(err, &nw) && !bound // its tag came: it answered as a worker
		again, aerr := w.answered(exe, outcome{build: build, answer: answer, bound: bound, why: err})
		switch {
		case aerr != nil:
			return nil, aerr
		case again:
			exe, self, _ = w.get()
			res, _, err = runWorker(ctx, exe, self, in, opts)
		}
	}
	if err != nil {
		return nil, err
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

// isBound tells that err is a bound that stopped a render process before it answered.
func isBound(err error) bool {
	var b *BoundError
	return errors.As(err, &b)
}

// workerEnv is the worker's whole environment: the worker variable, GOMAXPROCS, GOGC at
// chartrender.WorkerInitGC, and TZ (a chart's `now`) and GOCOVERDIR (coverage of test runs) when set.
// Nothing else of this process's environment, credentials included, reaches a chart's render.
func workerEnv(maxMemory int64) []string {
	// Two threads render as fast as more, and each thread's stack is address space bounded.
	env := []string{WorkerEnv + "=" + chartrender.WorkerTag + ":" + strconv.FormatInt(maxMemory, 10), "GOMAXPROCS=2",
		"GOGC=" + strconv.Itoa(chartrender.WorkerInitGC)}
	for _, k := range []string{"TZ", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// chooseWorker is the worker to start, for WorkerExeEnv's value named and this executable
// exe (its real file) on goos: named when set, else WorkerExe beside exe when it is a regular
// file there, else exe itself (self), whose main calls ServeWorker first.
func chooseWorker(named, exe, goos string) (worker string, self bool, err error) {
	if named != "" {
		if _, err := os.Stat(named); err != nil {
			return "", false, fmt.Errorf("%s: %w", WorkerExeEnv, err)
		}
		return named, false, nil
	}
	name := WorkerExe
	if goos == "windows" {
		name += ".exe"
	}
	beside := filepath.Join(filepath.Dir(exe), name)
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
		return beside, false, nil
	}
	return exe, true, nil
}

// readAnswer reads the worker's tag line, with the build it reports, and its gob-encoded
// response; an answer it cannot decode still has the build its tag reported.
func readAnswer(b []byte) (*chartrender.Response, string, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	line, err := r.ReadString('\n')
	build, ok := chartrender.SplitTag(strings.TrimSuffix(line, "\n"))
	if err != nil || !ok {
		return nil, "", &notWorkerError{answered: cut(strings.TrimSpace(line), 200)}
	}
	res := &chartrender.Response{}
	if err := gob.NewDecoder(r).Decode(res); err != nil {
		return nil, build, fmt.Errorf("its answer: %w", err)
	}
	return res, build, nil
}

// notWorkerError is a process's output that is not a render worker's answer: it answered
// (the first line, cut at 200 bytes) without the worker's tag.
type notWorkerError struct{ answered string }

func (e *notWorkerError) Error() string {
	return fmt.Sprintf("did not answer as a render worker (does main, or a test binary's TestMain, call helmrender.ServeWorker first?); it answered %q", e.answered)
}

// outOfMemory tells, from a Go process's standard error, that it died for want of memory:
// the runtime's "out of memory", or a failed mmap or thread creation (ENOMEM). A worker's
// address space is bounded (RLIMIT_AS), so a thread whose stack cannot be mapped fails in
// pthread_create, which glibc reports as EAGAIN ("runtime/cgo: pthread_create failed:
// Resource temporarily unavailable"); in a bounded worker that is the bound reached.
func outOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "errno=12", "pthread_create failed"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// fatal quotes the Go runtime's "fatal error:" line from a worker's standard error, if any.
// Otherwise it quotes the first line of standard error, if any, cut at 200 bytes: a worker
// that died without Go's words still says something.
func fatal(stderr string) string {
	lines := strings.Split(stderr, "\n")
	for _, line := range lines {
		if strings.HasPrefix(line, "fatal error:") || strings.HasPrefix(line, "panic:") {
			return fmt.Sprintf(" (%q)", line)
		}
	}
	if first := strings.TrimSpace(lines[0]); first != "" {
		return fmt.Sprintf(" (%q)", first[:min(len(first), 200)])
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
