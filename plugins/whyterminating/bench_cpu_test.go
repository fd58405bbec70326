package whyterminating_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The -A sweep on two shared cores is CPU-bound: its wall time follows the CPU the client and
// the control plane spend. benchCPU measures both around one run, so that a change can be
// judged by what it costs rather than by wall times that move with the machine's load.

// benchCPU is the CPU time (user+sys) one run cost: the benchmark process itself (the client
// runs in process) and the control plane's processes (kube-apiserver and etcd).
type benchCPU struct{ client, server time.Duration }

// benchCPUs is one contender's CPU times over the repetitions.
type benchCPUs []benchCPU

// cpuOf runs fn and returns the CPU it cost, in this process and in the control plane.
func (f *benchFixture) cpuOf(b *testing.B, fn func()) benchCPU {
	c0, s0 := benchSelfCPU(b), f.serverCPU(b)
	fn()
	return benchCPU{client: benchSelfCPU(b) - c0, server: f.serverCPU(b) - s0}
}

// benchSelfCPU is the user+sys time of this process so far.
func benchSelfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU is the user+sys time of the control plane's processes so far, from /proc (in
// clock ticks of 10 ms: USER_HZ is 100 on Linux).
func (f *benchFixture) serverCPU(b *testing.B) time.Duration {
	var total time.Duration
	for _, pid := range f.env.Pids() {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			b.Fatalf("reading the CPU time of control-plane process %d: %v", pid, err)
		}
		// Fields after the command name, which ends at the last ')': state is the first, utime
		// and stime the 12th and 13th.
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		for _, i := range []int{11, 12} {
			ticks, err := strconv.ParseInt(fields[i], 10, 64)
			if err != nil {
				b.Fatalf("parsing /proc/%d/stat: %v", pid, err)
			}
			total += time.Duration(ticks) * 10 * time.Millisecond
		}
	}
	return total
}

func (c benchCPUs) median(pick func(benchCPU) time.Duration) time.Duration {
	if len(c) == 0 {
		return 0
	}
	s := make([]time.Duration, len(c))
	for i := range c {
		s[i] = pick(c[i])
	}
	slices.Sort(s)
	return s[len(s)/2]
}

func (c benchCPUs) mean(pick func(benchCPU) time.Duration) time.Duration {
	if len(c) == 0 {
		return 0
	}
	var sum time.Duration
	for i := range c {
		sum += pick(c[i])
	}
	return sum / time.Duration(len(c))
}

// String is the medians and means, client and control plane, in ms. The control plane's
// garbage from one run is partly collected in the next (the contenders alternate), and its
// clock ticks are 10 ms: its means move less than its medians.
func (c benchCPUs) String() string {
	client := func(x benchCPU) time.Duration { return x.client }
	server := func(x benchCPU) time.Duration { return x.server }
	return fmt.Sprintf("CPU client %.0f ms, control plane %.0f ms (medians; means %.0f and %.0f ms)",
		benchMS(c.median(client)), benchMS(c.median(server)), benchMS(c.mean(client)), benchMS(c.mean(server)))
}

// profileAll, when KF_BENCH_PROFILE names a directory, runs the floor and then -A ten more times
// each under the CPU profiler (cpu-floor.pprof, cpu-A.pprof) and writes the heap allocations
// before and after each ten (allocs-floor-before.pprof … allocs-A-after.pprof: compare with
// pprof -diff_base), so that each profile holds its own runs alone, not the seeding or the
// other's, and `pprof -diff_base cpu-floor.pprof cpu-A.pprof` shows what -A does beyond its
// floor.
func (f *benchFixture) profileAll(ctx context.Context, b *testing.B) {
	dir := os.Getenv("KF_BENCH_PROFILE")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	writeHeap := func(name string) {
		runtime.GC()
		w, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if err := pprof.Lookup("allocs").WriteTo(w, 0); err != nil {
			b.Fatal(err)
		}
	}
	profile := func(name string, fn func()) {
		w, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		if err := pprof.StartCPUProfile(w); err != nil {
			b.Fatalf("starting the CPU profile (not with -cpuprofile): %v", err)
		}
		defer pprof.StopCPUProfile()
		fn()
	}
	writeHeap("allocs-floor-before.pprof")
	profile("cpu-floor.pprof", func() {
		for range 10 {
			f.runFloorAll(ctx, b)
		}
	})
	writeHeap("allocs-floor-after.pprof")
	writeHeap("allocs-A-before.pprof")
	var runs []*allRun
	profile("cpu-A.pprof", func() {
		for range 10 {
			runs = append(runs, f.startAll(ctx, f.flags))
		}
	})
	writeHeap("allocs-A-after.pprof")
	for _, run := range runs {
		f.checkAll(b, run)
	}
	f.allocsAll(ctx, b)
}

// allocsAll runs the floor and -A alternately, five times each, and logs the medians of what
// each run allocated in this process (bytes and objects, from runtime.MemStats) and of its
// client CPU: what the client costs apart from the control plane and the machine's load.
func (f *benchFixture) allocsAll(ctx context.Context, b *testing.B) {
	type cost struct{ bytes, objects uint64 }
	measure := func(fn func()) (cost, time.Duration) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		c0 := benchSelfCPU(b)
		fn()
		c1 := benchSelfCPU(b)
		runtime.ReadMemStats(&m1)
		return cost{m1.TotalAlloc - m0.TotalAlloc, m1.Mallocs - m0.Mallocs}, c1 - c0
	}
	var floor, why []cost
	var floorCPU, whyCPU []time.Duration
	for i := range 10 {
		if i%2 == 0 {
			c, cpu := measure(func() { f.runFloorAll(ctx, b) })
			floor, floorCPU = append(floor, c), append(floorCPU, cpu)
			continue
		}
		var run *allRun
		c, cpu := measure(func() { run = f.startAll(ctx, f.flags) })
		f.checkAll(b, run)
		why, whyCPU = append(why, c), append(whyCPU, cpu)
	}
	med := func(cs []cost, pick func(cost) uint64) uint64 {
		s := make([]uint64, len(cs))
		for i := range cs {
			s[i] = pick(cs[i])
		}
		slices.Sort(s)
		return s[len(s)/2]
	}
	bytesOf := func(c cost) uint64 { return c.bytes }
	objectsOf := func(c cost) uint64 { return c.objects }
	slices.Sort(floorCPU)
	slices.Sort(whyCPU)
	b.Logf("client alone, 5 runs each, alternated (medians): floor %.1f MB in %d allocations, CPU %.0f ms; -A %.1f MB in %d allocations, CPU %.0f ms; load %s",
		float64(med(floor, bytesOf))/1e6, med(floor, objectsOf), benchMS(floorCPU[len(floorCPU)/2]),
		float64(med(why, bytesOf))/1e6, med(why, objectsOf), benchMS(whyCPU[len(whyCPU)/2]), benchLoad())
}

// benchLoad is the machine's load averages, as /proc/loadavg gives them.
func benchLoad() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	f := strings.Fields(string(raw))
	return strings.Join(f[:min(3, len(f))], " ")
}
