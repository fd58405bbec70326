package helmrender

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// Worker is the render worker of one run: WorkerExeEnv's executable when set, else WorkerExe
// beside this executable's real file (symbolic links resolved: krew links a plugin from its
// bin directory into its store, where the worker was installed with it), else this executable
// started again (chooseWorker). A worker it finds is trusted by its first answer: every answer
// carries the worker's build (chartrender.Build), and the first one of this executable's build
// confirms it for the run. Until then, no outcome of it is used but that: an answer of another
// build (a worker left beside the plugin by another release), output that is not a worker's
// answer (not the tag), or a bound that stopped it before it answered (its build unknown) is
// rendered again in this executable; for the first two, the rest of the run renders there too
// and Note gets one line saying so. Once confirmed, an answer of another build is an error
// (the file was replaced during the run). The worker is never looked for on PATH or in the
// working directory, which a repository under review could fill. Safe for concurrent renders.
type Worker struct {
	// Note gets the one line said when a found worker is not used; nil: it is not said.
	Note io.Writer

	src  workerSource
	once sync.Once
	err  error

	mu        sync.Mutex
	exe       string
	self      bool
	confirmed bool
	// ahead is a process started before its render was asked for (StartAhead), and
	// expected how many renders the run said will start a process and have not yet; aheadCtx
	// and aheadOpts are what the next is started with.
	ahead     *process
	expected  int
	aheadCtx  context.Context
	aheadOpts Options
}

// workerSource is what a worker is chosen from: WorkerExeEnv's value, this executable's path,
// the OS, and this executable's build. Empty exe: this process's (os.Executable).
type workerSource struct {
	named, exe, goos, own string
}

// NewWorker is the worker of a run whose note, if any, goes to note. A Worker with only Note
// set is the same.
func NewWorker(note io.Writer) *Worker {
	return &Worker{Note: note, src: thisSource()}
}

// thisSource is this process's: WorkerExeEnv's value, its OS and its build.
func thisSource() workerSource {
	return workerSource{named: os.Getenv(WorkerExeEnv), goos: runtime.GOOS, own: chartrender.Build()}
}

// get is the executable a render starts now, and whether it is this executable (self): the
// worker chosen once, or this executable after the worker was refused.
func (w *Worker) get() (exe string, self bool, err error) {
	w.once.Do(func() {
		if w.src == (workerSource{}) {
			w.src = thisSource()
		}
		if w.src.exe, w.err = realExecutable(w.src.exe); w.err != nil {
			return
		}
		exe, self, err := chooseWorker(w.src.named, w.src.exe, w.src.goos)
		w.mu.Lock()
		w.exe, w.self, w.err = exe, self, err
		w.mu.Unlock()
	})
	if w.err != nil {
		return "", false, w.err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.exe, w.self, nil
}

// outcome is what a render by a found worker gave: an answer with its tag (the build it
// reported), a bound that stopped it before it answered, or output that is not a worker's
// answer (why).
type outcome struct {
	build         string
	answer, bound bool
	why           error
}

// answered takes the outcome o of a render by the worker exe (not this executable), and
// tells whether it may be used; when not, the render is done again in this executable
// (again). An answer of this build confirms the worker. Before that, an answer of another
// build, or output that is not a worker's answer, refuses it for the run (said once); a bound
// is rendered again without refusing it (a worker of this build is stopped by a hostile chart
// too). Once confirmed, an outcome stands, apart from an answer of another build: an error.
func (w *Worker) answered(exe string, o outcome) (again bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	why := o.why
	switch {
	case o.answer && o.build == w.src.own:
		w.confirmed = w.confirmed || exe == w.exe
		return false, nil
	case w.confirmed:
		if o.answer {
			return false, fmt.Errorf("the render process (%s) answered as build %q, not this plugin's %q", exe, o.build, w.src.own)
		}
		return false, nil
	case o.bound:
		return true, nil
	case o.answer && o.build == "":
		why = errors.New("it reports no build: a worker of an earlier build")
	case o.answer:
		why = fmt.Errorf("it is build %q, this plugin %q", o.build, w.src.own)
	}
	if !w.self {
		say(w.Note, "# the render worker %q is not used (%v): rendering in the plugin itself\n", exe, why)
		w.exe, w.self = w.src.exe, true
	}
	return true, nil
}

// realExecutable is the file exe ("": this process's executable), symbolic links resolved.
func realExecutable(exe string) (string, error) {
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return "", fmt.Errorf("this executable: %w", err)
		}
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return "", fmt.Errorf("this executable: %w", err)
	}
	return real, nil
}

func say(w io.Writer, format string, args ...any) {
	if w != nil {
		_, _ = fmt.Fprintf(w, format, args...) // a note that cannot be written changes no verdict
	}
}

func cut(s string, n int) string {
	return s[:min(len(s), n)]
}
