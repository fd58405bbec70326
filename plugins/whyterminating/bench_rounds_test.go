package whyterminating_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// With KF_BENCH_ONLY=A the benchmark measures `-A` against its floor in rounds: each round runs
// the floor and `-A` back to back (which one goes first alternates), so that the two runs of a
// round share the machine's load of the moment, and the ratio of each round is the measurement.
// Every round is printed, and every round counts (see benchAllWarmUp).

const (
	// benchAllCounted is how many rounds are counted in one benchmark iteration.
	benchAllCounted = 7
	// benchAllWarmUp is how many rounds run first and are printed but not counted: none. A
	// first round was measured as a warm-up in ten runs (2026-12-02, load 5 to 16): its ratio
	// (0.76x to 4.24x) and its CPU fell within the counted rounds' spread, its two outliers
	// beside counted rounds as far out, so there is no warm-up effect to drop; the setup
	// has already run the plugin once in process and kubectl once, which warms what a first
	// run would.
	benchAllWarmUp = 0
)

// benchAllRound is one round: the floor's and `-A`'s wall and CPU times, and the load average
// (one minute) after the round.
type benchAllRound struct {
	floor, why       time.Duration
	floorCPU, whyCPU benchCPU
	floorLists       int // the LISTs the floor made after discovery
	load             string
	warmUp, whyFirst bool
}

func (r benchAllRound) ratio() float64 { return float64(r.why) / float64(r.floor) }

// cpuRatio is -A's CPU (client and control plane) over the floor's: what the round's ratio
// would be on a machine with nothing else to run, if both were bound by CPU alone.
func (r benchAllRound) cpuRatio() float64 {
	return float64(r.whyCPU.client+r.whyCPU.server) / float64(r.floorCPU.client+r.floorCPU.server)
}

// benchAllRounds are the rounds of one benchmark iteration, the warm-up ones first.
type benchAllRounds []benchAllRound

// measureAll runs the warm-up and counted rounds, each run after a GC and a short pause.
func (f *benchFixture) measureAll(ctx context.Context, b *testing.B) benchAllRounds {
	var rounds benchAllRounds
	for i := range benchAllWarmUp + benchAllCounted {
		r := benchAllRound{warmUp: i < benchAllWarmUp, whyFirst: i%2 == 1}
		floor := func() {
			r.floorCPU = f.cpuOf(b, func() { r.floor, r.floorLists = f.runFloorAll(ctx, b) })
		}
		why := func() {
			var run *allRun
			r.whyCPU = f.cpuOf(b, func() { run = f.startAll(ctx, f.flags) })
			r.why = run.took
			f.checkAll(b, run)
		}
		pair := []func(){floor, why}
		if r.whyFirst {
			pair = []func(){why, floor}
		}
		for _, run := range pair {
			runtime.GC()
			time.Sleep(300 * time.Millisecond)
			run()
		}
		r.load = strings.Fields(benchLoad())[0]
		rounds = append(rounds, r)
	}
	return rounds
}

// counted are the rounds that count.
func (rs benchAllRounds) counted() benchAllRounds {
	return slices.DeleteFunc(slices.Clone(rs), func(r benchAllRound) bool { return r.warmUp })
}

// ratios returns the median, least and greatest of what ratio says of each counted round.
func (rs benchAllRounds) ratios(ratio func(benchAllRound) float64) (median, lo, hi float64) {
	var s []float64
	for _, r := range rs.counted() {
		s = append(s, ratio(r))
	}
	if len(s) == 0 {
		return 0, 0, 0
	}
	slices.Sort(s)
	return s[len(s)/2], s[0], s[len(s)-1]
}

// median returns the median over the counted rounds of what pick reads from each.
func (rs benchAllRounds) median(pick func(benchAllRound) time.Duration) time.Duration {
	var s []time.Duration
	for _, r := range rs.counted() {
		s = append(s, pick(r))
	}
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// table prints one line per round, the warm-up ones marked.
func (rs benchAllRounds) table() string {
	var s strings.Builder
	w := tabwriter.NewWriter(&s, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "round\tfirst\tfloor ms\t-A ms\t-A/floor\tfloor CPU client+cp ms\t-A CPU client+cp ms\tCPU -A/floor\tload 1m\t")
	for i, r := range rs {
		name := fmt.Sprint(i + 1)
		if r.warmUp {
			name += " (warm-up, not counted)"
		}
		first := "floor"
		if r.whyFirst {
			first = "-A"
		}
		fmt.Fprintf(w, "%s\t%s\t%.0f\t%.0f\t%.2fx\t%.0f+%.0f\t%.0f+%.0f\t%.2fx\t%s\t\n", name, first, benchMS(r.floor), benchMS(r.why), r.ratio(),
			benchMS(r.floorCPU.client), benchMS(r.floorCPU.server), benchMS(r.whyCPU.client), benchMS(r.whyCPU.server), r.cpuRatio(), r.load)
	}
	w.Flush()
	return s.String()
}

// proxiedAll runs `-A` once more through the counting proxy and returns its requests by
// resource, its phases, and when each request beyond the floor's (every one but the
// metadata-only LISTs and discovery) and every request that ended after the sweep's last
// metadata LIST ran.
func (f *benchFixture) proxiedAll(ctx context.Context, b *testing.B) (map[string]int, string, string) {
	f.proxy.reset()
	t0 := time.Now()
	d := f.runInProcessAll(ctx, b, f.proxy.flags)
	detail, t, log := f.proxy.resetDetail()
	var tail strings.Builder
	for _, q := range log {
		if q.end.After(t.metaEnd) || (!strings.HasSuffix(q.detail, " meta") && q.detail != "discovery") {
			fmt.Fprintf(&tail, "  %+6.0f ms to %+6.0f ms  %s\n", benchMS(q.start.Sub(t.metaEnd)), benchMS(q.end.Sub(t.metaEnd)), q.detail)
		}
	}
	return detail, t.phasesAll(t0, t0.Add(d)), tail.String()
}

// reportAll prints the -A rounds (KF_BENCH_ONLY=A) and records the median ratio and its spread.
func (r benchResult) reportAll(b *testing.B) {
	med, lo, hi := r.allRounds.ratios(benchAllRound.ratio)
	cmed, clo, chi := r.allRounds.ratios(benchAllRound.cpuRatio)
	b.ReportMetric(med, "x-of-floor-A")
	b.ReportMetric(lo, "x-of-floor-A-min")
	b.ReportMetric(hi, "x-of-floor-A-max")
	b.ReportMetric(cmed, "x-of-floor-A-CPU")
	floor := r.allRounds.median(func(x benchAllRound) time.Duration { return x.floor })
	why := r.allRounds.median(func(x benchAllRound) time.Duration { return x.why })
	b.ReportMetric(benchMS(why), "why-A-ms")
	b.ReportMetric(benchMS(floor), "floor-A-ms")
	cpu := func(pick func(benchAllRound) benchCPU, part func(benchCPU) time.Duration) float64 {
		return benchMS(r.allRounds.median(func(x benchAllRound) time.Duration { return part(pick(x)) }))
	}
	floorCPU := func(x benchAllRound) benchCPU { return x.floorCPU }
	whyCPU := func(x benchAllRound) benchCPU { return x.whyCPU }
	client := func(c benchCPU) time.Duration { return c.client }
	server := func(c benchCPU) time.Duration { return c.server }
	n := len(r.allRounds.counted())
	b.Logf("-A against its floor, %d rounds counted, %d warm-up before them (each round: both, back to back, the first alternating)\n%s"+
		"-A is %.2fx its floor: median of the %d rounds' ratios, min %.2fx, max %.2fx (target <= 1.25)\n"+
		"its CPU (client and control plane) is %.2fx the floor's: median, min %.2fx, max %.2fx\n"+
		"medians: floor %.0f ms, -A %.0f ms; CPU client floor %.0f ms, -A %.0f ms; control plane floor %.0f ms, -A %.0f ms (10 ms ticks)\n"+
		"requests: -A %d through the proxy, the floor %d LISTs after discovery\n"+
		"load average at the end: %s\none -A run through the proxy: %s; its requests by resource:\n%s"+
		"its requests beyond the floor's, and all that ended after its last metadata LIST (start and end, from that LIST's end):\n%s",
		n, benchAllWarmUp, r.allRounds.table(), med, n, lo, hi, cmed, clo, chi, benchMS(floor), benchMS(why),
		cpu(floorCPU, client), cpu(whyCPU, client), cpu(floorCPU, server), cpu(whyCPU, server),
		benchTotal(r.allDetail), r.allRounds[len(r.allRounds)-1].floorLists, benchLoad(), r.allPhases, benchFormatDetail(r.allDetail), r.allTail)
}
