package helmrender

import (
	"context"
	"sync"
)

// Workers keeps render processes started ahead of need. Starting one costs this executable's
// start-up (the Go runtime and every package's initialisation, tens of milliseconds); a
// pull-request gate that renders one changed release would otherwise pay it after the walk of
// both trees, on the path to its answer. Started beside the walk, a worker waits on its
// standard input, bounded as any render process, and one render takes it. A nil *Workers
// keeps none: every render starts its own process.
type Workers struct {
	ctx    context.Context
	opts   Options
	mu     sync.Mutex
	spare  *worker
	closed bool
}

// StartWorkers starts one render process with opts' bounds, stopped with ctx or Close, and
// keeps one started after each render takes one, until Close. A process that cannot be
// started is no error here: the render that needs it starts its own and reports why.
func StartWorkers(ctx context.Context, opts Options) *Workers {
	ws := &Workers{ctx: ctx, opts: limits(opts)}
	ws.refill()
	return ws
}

// refill starts a spare worker when there is none.
func (ws *Workers) refill() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.closed || ws.spare != nil {
		return
	}
	if w, err := startWorker(ws.ctx, ws.opts); err == nil {
		ws.spare = w
	}
}

// take returns the spare worker when it was started with opts' bounds (and starts the next
// in the background), nil otherwise.
func (ws *Workers) take(opts Options) *worker {
	if ws == nil {
		return nil
	}
	ws.mu.Lock()
	w := ws.spare
	if w == nil || w.maxBytes != opts.MaxBytes || w.maxMemory != opts.MaxMemory {
		ws.mu.Unlock()
		return nil
	}
	ws.spare = nil
	ws.mu.Unlock()
	go ws.refill()
	return w
}

// Close stops the spare worker, if any, and starts no other.
func (ws *Workers) Close() {
	if ws == nil {
		return
	}
	ws.mu.Lock()
	w := ws.spare
	ws.spare, ws.closed = nil, true
	ws.mu.Unlock()
	if w != nil {
		w.kill()
		_ = w.stdin.Close()
		_ = w.cmd.Wait()
	}
}
