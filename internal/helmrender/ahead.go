package helmrender

import (
	"context"
	"os"
)

// A render process starts in about 20 ms (exec, Go initialising its packages, the worker
// bounding its memory); started only when a render asks for it, that start is all on the
// run's critical path, once for every render. A run that knows which
// renders will start a process (their cache misses are known: Prepared.Cached) says so with
// StartAhead: the first process is started at once, before its request exists, and each
// render that takes one starts the next while more are expected, so a process starts while
// the one before renders. Nothing is started speculatively: a run that renders nothing
// starts none, and a process started ahead that no render takes is stopped and waited for
// when the run says it is done.

// StartAhead says that the run's next renders renders with opts will each start a render
// process (their cache misses are known): one is started now, unless one is waiting, in ctx
// (it is killed when ctx ends), and each render that takes one starts the next. The
// returned stop kills every process started ahead that no render took and waits for it to
// end; the caller calls it when its renders are done. With opts.InProcess, no opts.Worker,
// renders < 1, or in a render worker, nothing is started.
func StartAhead(ctx context.Context, opts Options, renders int) (stop func()) {
	w := opts.Worker
	if opts.InProcess || w == nil || renders < 1 || os.Getenv(WorkerEnv) != "" {
		return func() {}
	}
	opts = limits(opts)
	w.mu.Lock()
	w.expected, w.aheadCtx, w.aheadOpts = renders, ctx, opts
	w.mu.Unlock()
	w.startAhead()
	return w.stopAhead
}

// startAhead starts the process the next expected render takes, unless one is waiting or
// none is expected. A process that cannot be started is not: the render starts its own and
// says why.
func (w *Worker) startAhead() {
	w.mu.Lock()
	want, ctx, opts := w.ahead == nil && w.expected > 0, w.aheadCtx, w.aheadOpts
	w.mu.Unlock()
	if !want {
		return
	}
	exe, self, err := w.get()
	if err != nil {
		return
	}
	p, err := startProcess(ctx, exe, self, opts)
	if err != nil {
		return
	}
	w.mu.Lock()
	if w.ahead == nil && w.expected > 0 {
		w.ahead, p = p, nil
	}
	w.mu.Unlock()
	if p != nil {
		p.stop()
	}
}

// take is the process a render by exe (this executable when self) with opts writes its
// request to: the one started ahead when it is of that executable and those bounds (a worker
// refused after the process was started is not used: the process is stopped), else one
// started now. An expected render taking one starts the next ahead.
func (w *Worker) take(ctx context.Context, exe string, self bool, opts Options) (*process, error) {
	w.mu.Lock()
	p := w.ahead
	w.ahead = nil
	if w.expected > 0 {
		w.expected--
	}
	w.mu.Unlock()
	if p != nil && !p.fits(exe, self, opts) {
		p.stop()
		p = nil
	}
	var err error
	if p == nil {
		p, err = startProcess(ctx, exe, self, opts)
	}
	w.startAhead()
	return p, err
}

// stopAhead expects no more renders, and kills and waits for the process started ahead, if
// any.
func (w *Worker) stopAhead() {
	w.mu.Lock()
	p := w.ahead
	w.ahead, w.expected = nil, 0
	w.mu.Unlock()
	if p != nil {
		p.stop()
	}
}
