package fleet

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// abandonAfter is how long Run waits, past a context's timeout, for its function to return
// before it records the timeout and moves on: client-go stops at the deadline, but a
// credential plugin it runs may not.
const abandonAfter = 2 * time.Second

// Outcome is what one context's run gave: its result, or the error that stopped it.
type Outcome[R any] struct {
	Context Context
	Result  R
	Err     error
	Elapsed time.Duration
}

// Options bound a fleet run.
type Options struct {
	// Parallel is how many contexts run at once (at least 1).
	Parallel int
	// Timeout bounds each context's run; past it the context's outcome is a timeout error.
	Timeout time.Duration
}

// TimeoutError is the outcome of a context that did not finish within Options.Timeout.
type TimeoutError struct {
	Context string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no complete answer from context %s within --context-timeout=%s", e.Context, e.Timeout)
}

// Run calls one for every context, at most o.Parallel at a time, each under its own deadline,
// and returns the outcomes in the order of contexts. A run that ends past its deadline is a
// *TimeoutError whatever it returned: what it read may be partial. A cancelled parent context
// stops the contexts not yet started; their outcome is the parent's error.
func Run[R any](ctx context.Context, contexts []Context, o Options, one func(context.Context, Context) (R, error)) []Outcome[R] {
	out := make([]Outcome[R], len(contexts))
	sem := make(chan struct{}, max(o.Parallel, 1))
	var wg sync.WaitGroup
	for i, c := range contexts {
		out[i].Context = c
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			out[i].Err = context.Cause(ctx)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = runOne(ctx, c, o.Timeout, one)
		}()
	}
	wg.Wait()
	return out
}

// runOne runs one context under its deadline; past the deadline (plus abandonAfter for a
// function that ignores it) the outcome is a timeout.
func runOne[R any](parent context.Context, c Context, timeout time.Duration, one func(context.Context, Context) (R, error)) Outcome[R] {
	start := time.Now()
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	type answer struct {
		r    R
		err  error
		late bool
	}
	done := make(chan answer, 1)
	go func() {
		r, err := one(ctx, c)
		// Whether the deadline had passed when it returned, not when it is looked at.
		done <- answer{r, err, ctx.Err() != nil}
	}()
	a := answer{late: true}
	select {
	case a = <-done:
	case <-time.After(timeout + abandonAfter):
	}
	res := Outcome[R]{Context: c, Result: a.r, Err: a.err, Elapsed: time.Since(start)}
	var zero R
	switch {
	case a.late && parent.Err() != nil:
		res.Result, res.Err = zero, context.Cause(parent)
	case a.late:
		res.Result, res.Err = zero, &TimeoutError{Context: c.Name, Timeout: timeout}
	}
	return res
}

// SyncWriter serialises writes of several contexts' progress to one stream, a line at a time
// as each is written whole.
type SyncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewSyncWriter wraps w.
func NewSyncWriter(w io.Writer) *SyncWriter { return &SyncWriter{w: w} }

// Write writes p under the lock.
func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
