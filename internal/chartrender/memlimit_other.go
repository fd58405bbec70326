//go:build !linux

package chartrender

import "runtime/debug"

// limitMemory sets only Go's soft memory limit where RLIMIT_DATA is not enforced (macOS
// ignores it, Windows has none): the render still runs apart, killed at its deadline with
// its output bounded, but its memory is bounded only as far as the collector can keep it so.
func limitMemory(limit int64) error {
	debug.SetMemoryLimit(limit / 4 * 3)
	return nil
}
