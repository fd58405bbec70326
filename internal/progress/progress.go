// Package progress records what a run is busy with (a revision being extracted, a tier being
// built), so that a run stopped by --timeout or a signal can say what it was still doing
// instead of only that it stopped. It knows nothing of git or kustomize: the packages doing the
// work name their steps, the plugins ask what was under way when the run's context ended.
package progress

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Tracker holds the steps under way and, once its context ended, those that were under way
// at that moment.
type Tracker struct {
	ctx     context.Context
	mu      sync.Mutex
	next    int
	running map[int]string
	atEnd   []string
	ended   bool
}

type trackerKey struct{}

// Track returns ctx carrying a new Tracker, which notes the steps under way when ctx ends.
func Track(ctx context.Context) (context.Context, *Tracker) {
	t := &Tracker{ctx: ctx, running: map[int]string{}}
	context.AfterFunc(ctx, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.noteEnd()
	})
	return context.WithValue(ctx, trackerKey{}, t), t
}

// noteEnd keeps, once, the steps under way when the context ended; every step's end checks
// first, so a step that ends after the context did is named even before AfterFunc runs.
func (t *Tracker) noteEnd() {
	if !t.ended && t.ctx.Err() != nil {
		t.ended = true
		t.atEnd = t.current()
	}
}

func (t *Tracker) current() []string {
	out := make([]string, 0, len(t.running))
	for _, s := range t.running {
		out = append(out, s)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Begin records that the step named by format and args is under way, when ctx carries a
// Tracker, and returns the function that records its end.
func Begin(ctx context.Context, format string, args ...any) (done func()) {
	t, ok := ctx.Value(trackerKey{}).(*Tracker)
	if !ok {
		return func() {}
	}
	step := fmt.Sprintf(format, args...)
	t.mu.Lock()
	id := t.next
	t.next++
	t.running[id] = step
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.noteEnd()
		delete(t.running, id)
		t.mu.Unlock()
	}
}

// maxNamed bounds how many steps Describe names; the rest are counted.
const maxNamed = 20

// Describe says what was under way when the context ended (or, before that, now): "building
// tier a, building tier b and 3 more"; "" when nothing was.
func (t *Tracker) Describe() string {
	t.mu.Lock()
	t.noteEnd()
	steps := t.atEnd
	if !t.ended {
		steps = t.current()
	}
	t.mu.Unlock()
	if len(steps) == 0 {
		return ""
	}
	named := steps[:min(len(steps), maxNamed)]
	s := strings.Join(named, ", ")
	if more := len(steps) - len(named); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
