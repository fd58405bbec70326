package gitops

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// BenchmarkIncrementalLoad measures what a pull-request gate builds offline on generated
// home-ops repositories of 100 and 1,000 Kustomizations, against kustomize building every
// path once, one after another: today's two full loads (base and candidate at once, as
// --full does), and the incremental load (the changes listed, both revisions loaded with
// LoadPair) of a one-file image bump (target <= 0.25x) and of a change to the component
// every tier uses (target: no slower than today). Peak RSS is the process's high
// water mark over each run (reset through /proc/self/clear_refs).
func BenchmarkIncrementalLoad(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) { benchIncremental(b, n) })
	}
}

// incrBench is one generated repository with its four revisions extracted.
type incrBench struct {
	repo                  *gitrev.Repo
	base, one, every, two string // commits
	baseDir, oneDir       string
	everyDir, twoDir      string
	opts                  LoadOptions
	n                     int
	floorPaths            []string
	extractPerRevision    time.Duration
	baseBuilt             int // tiers the last LoadPair built at the base
}

func newIncrBench(b *testing.B, n int) *incrBench {
	dir := b.TempDir()
	paths, release, component, err := floor.HomeOps(dir, n)
	if err != nil {
		b.Fatal(err)
	}
	g := gittest.In(b, dir, nil)
	ib := &incrBench{n: n, floorPaths: paths, opts: LoadOptions{Entry: "clusters/main", NoFiles: true}}
	ib.base = g.Git("rev-parse", "HEAD")
	ib.one = g.Commit("one image bump", map[string]string{release: floor.HomeOpsRelease("app-0000", "1.1.0")})
	g.Git("checkout", "--quiet", "-B", "every", ib.base)
	ib.every = g.Commit("the shared component", map[string]string{component: floor.HomeOpsAlerts("page")})
	g.Git("checkout", "--quiet", "-B", "two", ib.base)
	ib.two = g.Commit("another image bump", map[string]string{strings.ReplaceAll(release, "app-0000", "app-0001"): floor.HomeOpsRelease("app-0001", "1.1.0")})
	g.Git("gc", "--quiet") // packed, as a clone is
	if ib.repo, err = gitrev.OpenRepo(dir); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	ib.baseDir = snapshot(b, ib.repo, ib.base).Dir
	ib.extractPerRevision = time.Since(start)
	ib.oneDir = snapshot(b, ib.repo, ib.one).Dir
	ib.everyDir = snapshot(b, ib.repo, ib.every).Dir
	ib.twoDir = snapshot(b, ib.repo, ib.two).Dir
	return ib
}

// today loads both revisions in full, at once, as the gate does without a base tree.
func (ib *incrBench) today(b *testing.B, candDir string) {
	var wg sync.WaitGroup
	for _, dir := range []string{ib.baseDir, candDir} {
		wg.Go(func() {
			if _, err := Load(context.Background(), dir, ib.opts); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
}

// gate is what safe-retire --offline does for cand: both revisions opened at once (read
// from git's objects, not written out), the changes listed and both loaded with LoadPair.
func (ib *incrBench) gate(b *testing.B, cand string, cache *BuildCache) {
	var trees [2]*gitrev.Tree
	var errs [2]error
	var wg sync.WaitGroup
	for i, rev := range []string{ib.base, cand} {
		wg.Go(func() { trees[i], errs[i] = ib.repo.OpenTree(b.Context(), rev) })
	}
	wg.Wait()
	for i, t := range trees {
		if errs[i] != nil {
			b.Fatal(errs[i])
		}
		defer t.Close()
	}
	changes, err := ib.repo.Changes(b.Context(), ib.base, cand)
	if err != nil {
		b.Fatal(err)
	}
	opts := ib.opts
	opts.Cache = cache
	if _, _, errB, errC := LoadPairFiles(context.Background(), trees[0], trees[1], opts, changes); errB != nil || errC != nil {
		b.Fatal(errB, errC)
	}
}

// gateWritten is gate as it was before revisions were read from git's objects: both written
// out at once (Snapshot), loaded from disk, and removed.
func (ib *incrBench) gateWritten(b *testing.B, cand string, cache *BuildCache) {
	var snaps [2]*gitrev.Snapshot
	var errs [2]error
	var wg sync.WaitGroup
	for i, rev := range []string{ib.base, cand} {
		wg.Go(func() { snaps[i], errs[i] = ib.repo.Snapshot(b.Context(), rev) })
	}
	wg.Wait()
	for i, s := range snaps {
		if errs[i] != nil {
			b.Fatal(errs[i])
		}
		defer s.Close()
	}
	changes, err := ib.repo.Changes(b.Context(), ib.base, cand)
	if err != nil {
		b.Fatal(err)
	}
	opts := ib.opts
	opts.Cache = cache
	if _, _, errB, errC := LoadPair(context.Background(), snaps[0].Dir, snaps[1].Dir, opts, changes); errB != nil || errC != nil {
		b.Fatal(errB, errC)
	}
}

// incremental lists the changes and loads both revisions with LoadPair, as the gate does,
// with cache when not nil; it returns how many tiers were built at the candidate.
func (ib *incrBench) incremental(b *testing.B, cand, candDir string, cache *BuildCache) int {
	ctx := context.Background()
	changes, err := ib.repo.Changes(b.Context(), ib.base, cand)
	if err != nil {
		b.Fatal(err)
	}
	opts := ib.opts
	opts.Cache = cache
	base, tree, errB, errC := LoadPair(ctx, ib.baseDir, candDir, opts, changes)
	if errB != nil || errC != nil {
		b.Fatal(errB, errC)
	}
	built := 0
	for _, t := range tree.Tiers {
		if !t.Unchanged {
			built++
		}
	}
	ib.baseBuilt = 0
	for _, t := range base.Tiers {
		if !t.NotBuilt() {
			ib.baseBuilt++
		}
	}
	return built
}

func benchIncremental(b *testing.B, n int) {
	if testing.Short() {
		b.Skip("builds generated repositories")
	}
	ib := newIncrBench(b, n)
	rounds := 3
	if n >= 1000 {
		rounds = 2
	}
	var floorR, todayR, oneR, everyR, warmR, gateR, warmGateR, writtenR, warmWrittenR run
	var oneBuilt, everyBuilt, oneBase int
	var hits, misses int64
	b.ResetTimer()
	for range rounds {
		floorR.add(measure(func() { floor.Build(ib.floorPaths, 1) }))
		todayR.add(measure(func() { ib.today(b, ib.oneDir) }))
		oneR.add(measure(func() { oneBuilt = ib.incremental(b, ib.one, ib.oneDir, nil) }))
		oneBase = ib.baseBuilt
		everyR.add(measure(func() { everyBuilt = ib.incremental(b, ib.every, ib.everyDir, nil) }))
		// An earlier gate on the same base (another image bump) filled the cache.
		cache, err := OpenBuildCache(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		ib.incremental(b, ib.two, ib.twoDir, cache)
		h0, m0, _ := cache.Stats()
		warmR.add(measure(func() { ib.incremental(b, ib.one, ib.oneDir, cache) }))
		h1, m1, _ := cache.Stats()
		hits, misses = h1-h0, m1-m0
		gateR.add(measure(func() { ib.gate(b, ib.one, nil) }))
		warm, err := OpenBuildCache(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		ib.incremental(b, ib.two, ib.twoDir, warm)
		warmGateR.add(measure(func() { ib.gate(b, ib.one, warm) }))
		writtenR.add(measure(func() { ib.gateWritten(b, ib.one, nil) }))
		warmWrittenR.add(measure(func() { ib.gateWritten(b, ib.one, warm) }))
	}
	b.StopTimer()
	if oneBuilt != 1 || everyBuilt != n {
		b.Fatalf("built %d tiers for one image bump (want 1) and %d for the shared component (want %d)", oneBuilt, everyBuilt, n)
	}
	b.ReportMetric(oneR.ratio(floorR), "one-file-x")
	b.ReportMetric(everyR.ratio(floorR), "every-tier-x")
	b.ReportMetric(warmR.ratio(floorR), "one-file-cached-x")
	b.ReportMetric(warmGateR.ratio(floorR), "gate-cached-x")
	b.ReportMetric(gateR.ratio(floorR), "gate-x")
	fmt.Printf("incremental load, %d Kustomizations (%d paths), GOMAXPROCS %d, mean of %d runs; wall time, and CPU time (user+system,\n", n, len(ib.floorPaths), runtime.GOMAXPROCS(0), rounds)
	fmt.Printf("which a machine shared with other work cannot inflate) with its ratio:\n")
	fmt.Printf("  %-54s %s\n", "kustomize build of every path once, one after another", floorR.line(floorR, rounds))
	fmt.Printf("  %-54s %s\n", "today: base and candidate loaded in full, at once", todayR.line(floorR, rounds))
	fmt.Printf("  %-54s %s (target <= 0.25x)\n", fmt.Sprintf("incremental, one-file change (1 + %d tiers built)", oneBase), oneR.line(floorR, rounds))
	fmt.Printf("  %-54s %s (target <= 0.25x)\n", fmt.Sprintf("same, base's builds cached (%d from cache, %d built)", hits, misses), warmR.line(floorR, rounds))
	fmt.Printf("  %-54s %s (%.2fx of today's wall, %.2fx of its CPU; target <= 1)\n", fmt.Sprintf("incremental, shared component (%d tiers built)", n),
		everyR.line(floorR, rounds), everyR.ratio(todayR), float64(everyR.cpu)/float64(todayR.cpu))
	fmt.Printf("  (one-file: 1 tier built at the candidate, %d at the base; not included above: extracting a revision, %d ms each)\n", oneBase, ib.extractPerRevision.Milliseconds())
	fmt.Printf("  %-54s %s\n", "whole gate, one-file change: open both, then load", gateR.line(floorR, rounds))
	fmt.Printf("  %-54s %s\n", "same, base's builds cached", warmGateR.line(floorR, rounds))
	fmt.Printf("  %-54s %s\n", "whole gate, both revisions written out (before)", writtenR.line(floorR, rounds))
	fmt.Printf("  %-54s %s\n", "same, base's builds cached", warmWrittenR.line(floorR, rounds))
}

// run sums the measurements of one scenario over the rounds.
type run struct {
	wall, cpu time.Duration
	rss       int64
}

func (r *run) add(wall, cpu time.Duration, rss int64) {
	r.wall, r.cpu, r.rss = r.wall+wall, r.cpu+cpu, max(r.rss, rss)
}

func (r run) ratio(floor run) float64 { return float64(r.wall) / float64(floor.wall) }

func (r run) line(floor run, rounds int) string {
	return fmt.Sprintf("wall %6d ms %5.2fx  cpu %6d ms %5.2fx  peak RSS %4d MB",
		r.wall.Milliseconds()/int64(rounds), r.ratio(floor), r.cpu.Milliseconds()/int64(rounds),
		float64(r.cpu)/float64(floor.cpu), r.rss>>10)
}

// measure runs f after a GC with the peak RSS reset, and returns its wall time, the
// process's CPU time and its peak RSS in KiB during it (0 where /proc cannot tell).
func measure(f func()) (wall, cpu time.Duration, rss int64) {
	runtime.GC()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	cpu0 := cpuTime()
	start := time.Now()
	f()
	return time.Since(start), cpuTime() - cpu0, peakRSS()
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS reads VmHWM from /proc/self/status, in KiB.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
