package helmrender

import (
	"runtime/debug"
	"syscall"
)

// limitMemory bounds this process's memory to limit bytes: RLIMIT_DATA, which Linux (4.7 and
// later) applies to every private writable mapping and so to the whole Go heap, makes an
// allocation past it fail and the runtime end the process ("out of memory"); Go's soft limit
// at three quarters of it makes the collector work harder before that.
func limitMemory(limit int64) error {
	debug.SetMemoryLimit(limit / 4 * 3)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(limit), Max: uint64(limit)})
}
