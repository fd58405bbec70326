// Package gcpace paces Go's collector for a short-lived command whose heap is small: the
// default (GOGC=100) collects a heap of a few megabytes many times over, which a one-file
// gate paid for in CPU time (a warm offline gate's collector ran 7 times over a 1–6 MB heap).
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// liveHeap is the runtime metric of the heap the last collection found live.
const liveHeap = "/gc/heap/live:bytes"

// Loosen sets the collector to percent (as GOGC would) for as long as the heap each
// collection finds live stays at or under below bytes; the first collection that finds more
// puts it back to Go's default (100), for good. Between two collections the heap grows to at
// most (1 + percent/100) times what the last one found live, so while the looser pace holds the
// heap stays under about (1 + percent/100) * below bytes (Go's default: 2 * below); past that
// the command runs as it would have without. A memory limit (GOMEMLIMIT) still applies. It does nothing when GOGC is set in
// the environment (getenv): the person running the command chose.
func Loosen(getenv func(string) string, percent int, below uint64) {
	if getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(percent)
	arm(below)
}

// sentinel is what each collection frees; a pointer field keeps it out of the tiny
// allocator, whose blocks are freed together.
type sentinel struct {
	_ *byte
}

// arm leaves a sentinel for the next collection to free: its cleanup, which runs after that
// collection, checks the live heap and arms again, or restores the default.
func arm(below uint64) {
	runtime.AddCleanup(&sentinel{}, check, below)
}

func check(below uint64) {
	if n, ok := live(); !ok || n > below {
		debug.SetGCPercent(100)
		return
	}
	arm(below)
}

// live is the heap the last collection found live, in bytes; not ok where the runtime does
// not say (then the default is restored: no bound, no looser pace).
func live() (uint64, bool) {
	s := []metrics.Sample{{Name: liveHeap}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return s[0].Value.Uint64(), true
}
