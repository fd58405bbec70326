package chartrender

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// asSlack is address space a worker may map beyond its memory bound: thread stacks and the
// runtime's own reservations, which hold no chart data.
const asSlack = 128 << 20

// limitMemory bounds this process's memory to limit bytes. RLIMIT_DATA (Linux 4.7 and later)
// counts every private writable mapping, so the Go heap; but Go reserves address space first
// and maps it writable in place, which Linux lets past RLIMIT_DATA, so one huge allocation
// would still pass. RLIMIT_AS, at what the process maps now plus limit (and asSlack), counts
// the reservation too and stops it. Past either the runtime ends the process "out of memory".
// Go's soft limit at three quarters of limit makes the collector work harder before that.
func limitMemory(limit int64) error {
	debug.SetMemoryLimit(limit / 4 * 3)
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(limit), Max: uint64(limit)}); err != nil {
		return fmt.Errorf("RLIMIT_DATA: %w", err)
	}
	mapped, err := addressSpace()
	if err != nil {
		return err
	}
	as := uint64(mapped + limit + asSlack)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as}); err != nil {
		return fmt.Errorf("RLIMIT_AS: %w", err)
	}
	return nil
}

// addressSpace is the size of this process's mappings, from /proc/self/statm.
func addressSpace() (int64, error) {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	pages, err := strconv.ParseInt(strings.Fields(string(data) + " x")[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}
