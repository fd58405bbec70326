package progress

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Warnings gathers the warnings a library raises once per piece of work (kustomize warns on
// every build of a kustomization that uses a deprecated field), so that a run says each
// distinct warning once, with how many pieces of work raised it and where, instead of
// flooding a CI log with the same line.
type Warnings struct {
	mu sync.Mutex
	by map[string]*warning
}

type warning struct {
	times int
	where map[string]bool
}

type warningsKey struct{}

// CollectWarnings returns ctx carrying a new Warnings, which Warn calls under it add to.
func CollectWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{by: map[string]*warning{}}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// Warn notes that one piece of work raised text, at the places named in where. Without a
// collector in ctx it does nothing: the caller has no one to tell.
func Warn(ctx context.Context, text string, where ...string) {
	w, _ := ctx.Value(warningsKey{}).(*Warnings)
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.by[text]
	if e == nil {
		e = &warning{where: map[string]bool{}}
		w.by[text] = e
	}
	e.times++
	for _, p := range where {
		e.where[p] = true
	}
}

// Lines are the warnings, one line each, sorted: the text, how many times it was raised and
// (at most five of) the places, "" when there were none. Lines are not sanitized: a place
// is a repository's file name; the printer escapes them as all untrusted text.
func (w *Warnings) Lines(unit string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for text, e := range w.by {
		where := slices.Sorted(func(yield func(string) bool) {
			for p := range e.where {
				if !yield(p) {
					return
				}
			}
		})
		line := fmt.Sprintf("%s (%d %s", text, e.times, plural(e.times, unit))
		if len(where) > 0 {
			more := ""
			if len(where) > 5 {
				more, where = fmt.Sprintf(" and %d more", len(where)-5), where[:5]
			}
			line += ": " + strings.Join(where, ", ") + more
		}
		out = append(out, line+")")
	}
	slices.Sort(out)
	return out
}

func plural(n int, unit string) string {
	if n == 1 {
		return unit
	}
	return unit + "s"
}
