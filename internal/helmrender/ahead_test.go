package helmrender

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/chartrender"
)

// children counts the processes whose parent is this one, from /proc.
func children(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := strconv.Itoa(os.Getpid())
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid …: comm may hold spaces, so fields are read after its ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == self {
			n++
		}
	}
	return n
}

// A process started ahead is the one the next render writes its request to (the worker is
// started once a render, not twice), the next is started while that one renders only when
// another render is expected, and stop kills and waits for every process no render took: no
// child of the gate is left, whether the renders expected came, came in part, or not at all,
// and whether the run's context ended first. The worker is this test binary, started through
// a script that logs its starts.
func TestStartAheadLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc and shell scripts")
	}
	testBinary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plugin := logged(t, filepath.Join(t.TempDir(), "flux-safe-retire"), testBinary)
	hr, c := workerRelease(t)
	newWorker := func() *Worker {
		return &Worker{src: workerSource{exe: plugin, goos: runtime.GOOS, own: chartrender.Build()}}
	}
	render := func(t *testing.T, opts Options) {
		t.Helper()
		if r, err := Do(context.Background(), hr, c, "", nil, opts); err != nil || len(r.Manifest) == 0 {
			t.Fatalf("render: %v", err)
		}
	}
	if n := children(t); n != 0 {
		t.Fatalf("%d children before the test", n)
	}
	cases := []struct {
		name              string
		expected, renders int
		cancel            bool
		// wantStarts counts the worker's starts; waiting the processes alive before stop.
		wantStarts, waiting int
	}{
		{name: "one expected, one rendered", expected: 1, renders: 1, wantStarts: 1},
		{name: "two expected, two rendered: the second started while the first renders", expected: 2, renders: 2, wantStarts: 2},
		{name: "three expected, one rendered", expected: 3, renders: 1, wantStarts: 2, waiting: 1},
		{name: "two expected, none rendered", expected: 2, wantStarts: 1, waiting: 1},
		{name: "one expected, the run stopped", expected: 1, cancel: true, wantStarts: 1},
		{name: "none expected: none started", expected: 0, wantStarts: 0},
		{name: "none expected, one rendered: started for it", expected: 0, renders: 1, wantStarts: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := starts(t, plugin)
			opts := Options{Worker: newWorker(), MaxMemory: workerTestMemory()}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stop := StartAhead(ctx, opts, tc.expected)
			for range tc.renders {
				render(t, opts)
			}
			if tc.waiting > 0 || tc.cancel {
				// A process killed before its script logged the start would not be counted.
				waitStarts(t, plugin, before+tc.wantStarts)
			}
			if tc.cancel {
				cancel()
			}
			if n := children(t); !tc.cancel && n != tc.waiting {
				t.Errorf("%d processes alive before stop, want %d", n, tc.waiting)
			}
			stop()
			if n := children(t); n != 0 {
				t.Errorf("%d processes left after stop", n)
			}
			if got := starts(t, plugin) - before; got != tc.wantStarts {
				t.Errorf("the worker started %d times, want %d", got, tc.wantStarts)
			}
		})
	}
}

// StartAhead starts nothing where no render starts a process: renders in this process, and a
// run without a Worker.
func TestStartAheadNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc")
	}
	w := &Worker{src: workerSource{exe: "/nonexistent/plugin", goos: runtime.GOOS, own: chartrender.Build()}}
	for name, opts := range map[string]Options{"in process": {InProcess: true, Worker: w}, "no worker": {}} {
		StartAhead(context.Background(), opts, 3)()
		if n := children(t); n != 0 {
			t.Errorf("%s: %d processes", name, n)
		}
	}
}

// waitStarts waits, up to a minute, until the logged script at path was started n times.
func waitStarts(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for starts(t, path) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the worker started %d times in a minute, want %d", starts(t, path), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
