package helmrender

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// process is a render worker process started before its request is written: Go initialises
// its packages and the worker bounds its memory (chartrender.ServeWorker) while the gate goes
// on, and the request is written when its render is asked for (answer). Its environment and
// bounds are a render's (workerEnv, opts.MaxBytes); its deadline, opts.Timeout, runs from the
// request. A process that is not used is stopped and waited for (stop).
type process struct {
	exe  string
	self bool
	mem  int64

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *capped
	stderr *capped
	// kill stops the process (it ends its context); parent is the context it was started in.
	kill   context.CancelFunc
	parent context.Context
}

// startProcess starts exe (this executable when self) as a render worker bounded by opts,
// without its request; the process ends when ctx does.
func startProcess(ctx context.Context, exe string, self bool, opts Options) (*process, error) {
	pctx, kill := context.WithCancel(ctx)
	var args []string
	if self && testing.Testing() {
		// A test binary whose TestMain lacks the hook must not run its tests as a worker.
		args = []string{"-test.run=^$", "-test.bench=^$"}
	}
	cmd := exec.CommandContext(pctx, exe, args...)
	cmd.Env = workerEnv(opts.MaxMemory)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		kill()
		return nil, fmt.Errorf("the render process (%s): %w", exe, err)
	}
	p := &process{exe: exe, self: self, mem: opts.MaxMemory, cmd: cmd, stdin: stdin, kill: kill, parent: ctx,
		stdout: &capped{max: len(chartrender.WorkerTag) + 1 + opts.MaxBytes + 1<<20, full: kill},
		stderr: &capped{max: stderrBytes}}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		kill()
		return nil, fmt.Errorf("the render process (%s) did not start: %w", exe, err)
	}
	return p, nil
}

// fits tells whether p renders as a process started now for exe and opts would.
func (p *process) fits(exe string, self bool, opts Options) bool {
	return p.exe == exe && p.self == self && p.mem == opts.MaxMemory && p.stdout.max == len(chartrender.WorkerTag)+1+opts.MaxBytes+1<<20
}

// answer writes the request in to p, waits for p to end (at most opts.Timeout from now, or
// until ctx or the context p was started in ends) and reads its answer and the build the
// answer reports. A process that gives no answer is a BoundError when a bound stopped it, a
// notWorkerError when its output is not a worker's answer.
func (p *process) answer(ctx context.Context, in []byte, opts Options) (*chartrender.Response, string, error) {
	var timedOut, stopped bool
	var mu sync.Mutex
	deadline := time.AfterFunc(opts.Timeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		p.kill()
	})
	unhook := context.AfterFunc(ctx, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		p.kill()
	})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		// A process that died, or was killed, before reading it all makes this fail; its
		// output then says why.
		_, _ = p.stdin.Write(in)
		_ = p.stdin.Close()
	}()
	runErr := p.cmd.Wait()
	<-wrote
	deadline.Stop()
	unhook()
	p.kill()
	mu.Lock()
	defer mu.Unlock()
	switch {
	case p.stdout.over:
		return nil, "", &BoundError{Bound: BoundOutput, Detail: fmt.Sprintf("its answer passed %d bytes, more than the %d a release may render", p.stdout.max, opts.MaxBytes)}
	case stopped || p.parent.Err() != nil:
		cause := context.Cause(ctx)
		if !stopped {
			cause = context.Cause(p.parent)
		}
		return nil, "", fmt.Errorf("the render was stopped: %w", cause)
	case timedOut:
		return nil, "", &BoundError{Bound: BoundTime, Detail: fmt.Sprintf("not rendered within %s; its process was killed", opts.Timeout)}
	case outOfMemory(p.stderr.String()):
		return nil, "", &BoundError{Bound: BoundMemory, Detail: fmt.Sprintf("its process needed more than the %d MiB a render may use, and was stopped", opts.MaxMemory>>20)}
	}
	res, build, err := readAnswer(p.stdout.Bytes())
	if err != nil {
		return nil, build, fmt.Errorf("the render process (%s) %v%s: %w", p.exe, exitText(runErr), fatal(p.stderr.String()), err)
	}
	return res, build, nil
}

// stop kills p, which was not given a request, and waits for it to end: how it ended says
// nothing a render needs.
func (p *process) stop() {
	p.kill()
	_ = p.stdin.Close()
	_ = p.cmd.Wait()
}

// runWorker starts exe (this executable when self) on the request in and reads its answer and
// the build the answer reports (process.answer).
func runWorker(ctx context.Context, exe string, self bool, in []byte, opts Options) (*chartrender.Response, string, error) {
	p, err := startProcess(ctx, exe, self, opts)
	if err != nil {
		return nil, "", err
	}
	return p.answer(ctx, in, opts)
}
