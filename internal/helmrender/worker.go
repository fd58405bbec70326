package helmrender

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// handshakeTimeout bounds the one start of a found worker that asks for its build.
const handshakeTimeout = 10 * time.Second

// Worker is the render worker of one run, chosen on its first render and kept for the rest:
// WorkerExeEnv's executable when set, else WorkerExe beside this executable's real file
// (symbolic links resolved: krew links a plugin from its bin directory into its store, where
// the worker was installed with it), else this executable started again (chooseWorker). A
// worker it finds is started once with no request, and answers with its build
// (chartrender.Build); one of another build than this executable's (left beside the plugin by
// another release) or that does not answer as a worker is not used: the renders run in this
// executable instead, and Note gets one line saying so. The worker is never looked for on
// PATH or in the working directory, which a repository under review could fill.
type Worker struct {
	// Note gets the one line said when a found worker is not used; nil: it is not said.
	Note io.Writer

	src  workerSource
	once sync.Once
	exe  string
	self bool
	err  error
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

// get is the worker executable, and whether it is this executable (self); chosen once.
func (w *Worker) get(ctx context.Context) (exe string, self bool, err error) {
	w.once.Do(func() {
		if w.src == (workerSource{}) {
			w.src = thisSource()
		}
		src := w.src
		if src.exe, w.err = realExecutable(src.exe); w.err != nil {
			return
		}
		w.exe, w.self, w.err = pickWorker(ctx, src, w.Note)
	})
	return w.exe, w.self, w.err
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

// pickWorker chooses the worker from src, and asks a found one for its build: one of another
// build, or that does not answer, gives way to src.exe itself, said on note.
func pickWorker(ctx context.Context, src workerSource, note io.Writer) (exe string, self bool, err error) {
	found, self, err := chooseWorker(src.named, src.exe, src.goos)
	if err != nil || self {
		return found, self, err
	}
	build, err := handshake(ctx, found)
	if err == nil && build != src.own {
		err = fmt.Errorf("it is build %q, this plugin %q", build, src.own)
	}
	if err == nil {
		return found, false, nil
	}
	say(note, "# the render worker %q is not used (%v): rendering in the plugin itself\n", found, err)
	return src.exe, true, nil
}

func say(w io.Writer, format string, args ...any) {
	if w != nil {
		_, _ = fmt.Fprintf(w, format, args...) // a note that cannot be written changes no verdict
	}
}

// handshake starts the worker exe with no request and reads the build its tag line reports.
// With no request it renders nothing: it answers that its input ended.
func handshake(ctx context.Context, exe string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, handshakeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = workerEnv(DefaultMaxMemory)
	cmd.Stdin = strings.NewReader("")
	stdout := &capped{max: 4 << 10, full: cancel}
	stderr := &capped{max: stderrBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	line, _ := bufio.NewReader(bytes.NewReader(stdout.Bytes())).ReadString('\n')
	build, ok := chartrender.SplitTag(strings.TrimSuffix(line, "\n"))
	switch {
	case !ok && ctx.Err() != nil:
		return "", fmt.Errorf("it did not answer within %s", handshakeTimeout)
	case !ok:
		return "", fmt.Errorf("it did not answer as a render worker: it %s%s and answered %q", exitText(runErr), fatal(stderr.String()), cut(strings.TrimSpace(line), 200))
	case build == "":
		return "", errors.New("it reports no build: a worker of an earlier build")
	}
	return build, nil
}

func cut(s string, n int) string {
	return s[:min(len(s), n)]
}
