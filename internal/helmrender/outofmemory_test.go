package helmrender

import "testing"

// A worker's death is read as its memory bound only on the words the Go runtime and glibc use
// for memory: a bounded worker that cannot map a thread's stack fails in pthread_create
// (TestHostileChartsBounded saw it under load, CI 2026-12-03).
func TestOutOfMemory(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   bool
	}{
		{"fatal error: out of memory\n", true},
		{"runtime: mmap: cannot allocate memory\n", true},
		{"runtime: failed to create new OS thread (have 5 already; errno=12)\n", true},
		{"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n", true},
		{"panic: runtime error: index out of range [3] with length 2\n", false},
		{"", false},
	} {
		if got := outOfMemory(tc.stderr); got != tc.want {
			t.Errorf("outOfMemory(%q) = %v, want %v", tc.stderr, got, tc.want)
		}
	}
}
