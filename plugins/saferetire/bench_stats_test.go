package saferetire_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sample is one timed run: its wall time and its CPU time (user and system, of this process or
// of a child, with the processes they waited for: render workers, git).
type sample struct{ wall, cpu time.Duration }

// samples are the rounds of one scenario, in the order they ran.
type samples []sample

// median is the median wall time and the median CPU time (taken apart).
func (s samples) median() sample {
	return sample{wall: medianOf(s, func(x sample) time.Duration { return x.wall }), cpu: medianOf(s, func(x sample) time.Duration { return x.cpu })}
}

func medianOf(s samples, f func(sample) time.Duration) time.Duration {
	if len(s) == 0 {
		return 0
	}
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// ratios are the median, over the rounds, of s's wall and CPU time over ref's in the same
// round: on a shared machine a round's load weighs on both sides of its ratio alike.
func (s samples) ratios(ref samples) (wall, cpu float64) {
	var w, c []float64
	for i := range min(len(s), len(ref)) {
		w = append(w, float64(s[i].wall)/float64(ref[i].wall))
		c = append(c, float64(s[i].cpu)/float64(ref[i].cpu))
	}
	return medianFloat(w), medianFloat(c)
}

func medianFloat(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// reportRatios reports s's median wall and CPU ratios to ref as the benchmark's metrics
// "<what><unit>" and "<what>-cpu<unit>".
func reportRatios(b *testing.B, what, unit string, s, ref samples) {
	wall, cpu := s.ratios(ref)
	b.ReportMetric(wall, what+unit)
	b.ReportMetric(cpu, what+"-cpu"+unit)
}

// line prints s's medians against ref's: "wall N ms R x  cpu N ms R x".
func (s samples) line(ref samples) string {
	m := s.median()
	w, c := s.ratios(ref)
	return fmt.Sprintf("wall %6d ms %5.2fx  cpu %6d ms %5.2fx", m.wall.Milliseconds(), w, m.cpu.Milliseconds(), c)
}

// measure runs f and returns its wall time and the CPU time of this process and of the
// children it waited for (render processes, git) meanwhile.
func measure(f func()) sample {
	cpu0 := cpuOf(syscall.RUSAGE_SELF) + cpuOf(syscall.RUSAGE_CHILDREN)
	start := time.Now()
	f()
	return sample{wall: time.Since(start), cpu: cpuOf(syscall.RUSAGE_SELF) + cpuOf(syscall.RUSAGE_CHILDREN) - cpu0}
}

func cpuOf(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU is the CPU time of a finished child, with the processes it waited for.
func processCPU(c *exec.Cmd) time.Duration {
	if c.ProcessState == nil {
		return 0
	}
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

// loadAverage is the machine's 1-minute load average, as /proc/loadavg says ("?" elsewhere):
// printed beside every figure, since the machine the benchmarks run on may be shared.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
