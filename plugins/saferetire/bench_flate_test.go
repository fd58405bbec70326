package saferetire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	kfloor "github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// FlateEnv names the environment variable that may give the flate binary; by default it is
// the one `make bench`'s tool cache holds (see flateBinary).
const flateEnv = "KUBEFORENSICS_FLATE"

// flateRounds is how many times each side-by-side is run; the medians are reported.
const flateRounds = 3

// flateBinary is the flate executable (https://github.com/home-operations/flate, AGPL: it is
// only run, as another program, never linked or read): $KUBEFORENSICS_FLATE, else
// kubeforensics/tools/flate-bin/flate under the user's cache directory; "" when neither is
// an executable file.
func flateBinary() string {
	candidates := []string{os.Getenv(flateEnv)}
	if dir, err := os.UserCacheDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "kubeforensics", "tools", "flate-bin", "flate"))
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); p != "" && err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// gateBinary builds the command (cmd/kubectl-safe_retire) into a temporary directory, with
// the render worker (cmd/kubeforensics-helmrender) beside it as it is installed: the gate is
// run as a program, as flate is, so both pay their process start and package
// initialisation, and nothing one run leaves in memory makes the next warmer.
func gateBinary(b *testing.B) string {
	dir := b.TempDir()
	goBuild(b, dir, "github.com/kubeforensics/suite/cmd/kubectl-safe_retire", "github.com/kubeforensics/suite/cmd/kubeforensics-helmrender")
	return filepath.Join(dir, "kubectl-safe_retire")
}

// renderWorkerBinary builds the render worker (cmd/kubeforensics-helmrender) into a temporary
// directory: a benchmark that runs the gate in its own process starts it for renders, as the
// installed gate does, not the test binary (which links every test's packages). Without VCS
// stamping: its build is then "dev@+src.<digest of the render code>", a test binary's of the
// same tree, so the gate in the test binary takes it for its own build and uses it
// (internal/helmrender's Worker, chartrender.Build).
func renderWorkerBinary(b *testing.B) string {
	dir := b.TempDir()
	goBuild(b, dir, "-buildvcs=false", "github.com/kubeforensics/suite/cmd/kubeforensics-helmrender")
	return filepath.Join(dir, "kubeforensics-helmrender")
}

// goBuild runs go build into dir with args (flags, then packages).
func goBuild(b *testing.B, dir string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + string(filepath.Separator)}, args...)...).CombinedOutput()
	if err != nil {
		b.Fatalf("building %v: %v\n%s", args, err, out)
	}
}

// flateRepo is one generated repository for the side-by-side run: its directory, the base
// and the candidate (one file changed: the first app's image), and another candidate (the
// second app's image) whose runs fill the warm caches.
type flateRepo struct {
	name           string
	dir            string
	base, one, two string
	// kind is the kind of the object the change shows in: a Deployment, or the HelmRelease's
	// rendered Deployment.
	kind string
}

// newFlateRepo generates n apps under l, commits them, and commits the first app's image
// bump (one) and, from the base, the second app's (two).
func newFlateRepo(b *testing.B, name string, n int, l kfloor.Layout) *flateRepo {
	fr := &flateRepo{name: name, dir: b.TempDir(), kind: "Deployment"}
	_, release, _, err := kfloor.HomeOpsWith(fr.dir, n, l)
	if err != nil {
		b.Fatal(err)
	}
	g := gittest.In(b, fr.dir, nil)
	fr.base = g.Git("rev-parse", "HEAD")
	fr.one = g.Commit("one image bump", map[string]string{release: kfloor.HomeOpsReleaseWith(l, "app-0000", "1.1.0")})
	g.Git("checkout", "--quiet", "-B", "two", fr.base)
	fr.two = g.Commit("another image bump", map[string]string{strings.ReplaceAll(release, "app-0000", "app-0001"): kfloor.HomeOpsReleaseWith(l, "app-0001", "1.1.0")})
	g.Git("gc", "--quiet") // packed, as a clone is
	return fr
}

// changed is the app whose image cand bumps.
func (fr *flateRepo) changed(cand string) string {
	if cand == fr.two {
		return "app-0001"
	}
	return "app-0000"
}

// gate runs the gate's binary from base to cand, with its caches under cacheDir, checks that
// it judged the change (SAFE, the changed app's Kustomization built, not copied from the
// base) and returns its wall and CPU time.
func (fr *flateRepo) gate(b *testing.B, bin, cand, cacheDir string) sample {
	cmd := exec.Command(bin, "--dry-run", "--offline", "--repo", fr.dir, "--base", fr.base, "--candidate", cand, "-o", "json",
		"--build-cache", filepath.Join(cacheDir, "builds"), "--render-cache", filepath.Join(cacheDir, "renders"))
	cmd.Env = append(os.Environ(), "HOME="+cacheDir, "XDG_CACHE_HOME="+cacheDir)
	out, s := runTimed(b, cmd)
	var res saferetire.Result
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("%s: gate output: %v\n%s", fr.name, err, tail(string(out), 4000))
	}
	want := fr.changed(cand)
	if res.Verdict != "SAFE" || !slices.ContainsFunc(res.Kustomizations, func(k string) bool { return strings.HasSuffix(k, "/"+want) }) ||
		slices.ContainsFunc(res.Unchanged, func(k string) bool { return strings.HasSuffix(k, "/"+want) }) {
		b.Fatalf("%s: the gate did not judge %s's image bump (verdict %s, its Kustomization unchanged or not found)\n%s", fr.name, want, res.Verdict, tail(string(out), 4000))
	}
	return s
}

// flate runs flate's `diff all` on the working tree (checked out at cand) against the base,
// with HOME and XDG_CACHE_HOME at home (its caches), checks that its output names the
// changed app's object with the new image and no other app, and returns its wall and CPU
// time. A bare `flate diff` only prints its help, hence `diff all`.
func (fr *flateRepo) flate(b *testing.B, bin, cand, home string) sample {
	gittest.Run(b, fr.dir, "checkout", "--quiet", "--detach", cand)
	cmd := exec.Command(bin, "diff", "all", "--no-progress", "-p", fr.dir, "--base", fr.base)
	cmd.Dir = fr.dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	out, s := runTimed(b, cmd)
	want := fr.changed(cand)
	named := slices.Compact(slices.Sorted(slices.Values(appName.FindAllString(string(out), -1))))
	if !bytes.Contains(out, []byte(fr.kind+"/ns-000/"+want)) || !bytes.Contains(out, []byte("app:1.1.0")) || !slices.Equal(named, []string{want}) {
		b.Fatalf("%s: flate's output does not name exactly %s's %s and its new image (it names %v): the comparison would be meaningless\n%s", fr.name, want, fr.kind, named, tail(string(out), 4000))
	}
	return s
}

var appName = regexp.MustCompile(`app-[0-9]{4}`)

// runTimed runs cmd, bounded, and returns its standard output and its wall and CPU time;
// a failure ends the benchmark with its output.
func runTimed(b *testing.B, cmd *exec.Cmd) ([]byte, sample) {
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Minute):
		_ = cmd.Process.Kill()
		err = fmt.Errorf("killed after 20 minutes: %w", <-done)
	}
	s := sample{wall: time.Since(start), cpu: processCPU(cmd)}
	if err != nil {
		b.Fatalf("%s: %v\n%s\n%s", strings.Join(cmd.Args, " "), err, tail(out.String(), 4000), tail(errOut.String(), 4000))
	}
	return out.Bytes(), s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// BenchmarkFlate runs the offline gate and flate (https://github.com/home-operations/flate,
// run as another program, when its binary is at hand: see flateBinary) side by side on the
// same one-file pull requests: the generated 1,000-Kustomization repository with only
// Deployments (one image bump; issue targets: <= 0.5x flate cold, <= 0.25x warm), and the
// repository of BenchmarkHelmGate (102 paths, 80 HelmReleases of the repository's own chart).
// Both are programs started afresh. Cold is with empty caches (a fresh HOME for flate); warm
// with the caches a run on another one-file change of the same base filled. Each round runs
// both, the gate first in odd rounds and flate first in even ones; the medians of
// flateRounds rounds are printed, wall and CPU time (user+system, with the processes each
// waited for), with the load average. Without flate's binary it is skipped, saying so.
func BenchmarkFlate(b *testing.B) {
	if testing.Short() {
		b.Skip("builds generated repositories")
	}
	bin := flateBinary()
	if bin == "" {
		b.Skipf("flate not found: set $%s, or build it into kubeforensics/tools/flate-bin/flate under the user cache directory (GOTOOLCHAIN=go1.27.3 go install github.com/home-operations/flate/cmd/flate@v0.6.5)", flateEnv)
	}
	gate := gateBinary(b)
	fmt.Printf("safe-retire offline gate (%s) against flate (%s), one-file change, both run as programs, median of %d rounds:\n", gate, bin, flateRounds)
	b.Run("deployments-1000", func(b *testing.B) {
		benchFlate(b, gate, bin, newFlateRepo(b, "1,000 Kustomizations, all Deployments", 1000, kfloor.Layout{DeploymentEvery: 1}))
	})
	b.Run("helmreleases-80", func(b *testing.B) {
		benchFlate(b, gate, bin, newFlateRepo(b, "102 paths, 80 HelmReleases", helmBenchApps, kfloor.Layout{DeploymentEvery: 5, Chart: appChartFiles()}))
	})
}

// benchFlate measures the gate and flate on fr, cold and warm, and prints the medians.
func benchFlate(b *testing.B, gateBin, flateBin string, fr *flateRepo) {
	b.ResetTimer()
	load0 := loadAverage()
	var gateCold, gateWarm, flateCold, flateWarm samples
	for r := range flateRounds {
		gateRound := func() {
			cold, warm := b.TempDir(), b.TempDir()
			gateCold = append(gateCold, fr.gate(b, gateBin, fr.one, cold))
			fr.gate(b, gateBin, fr.two, warm)
			gateWarm = append(gateWarm, fr.gate(b, gateBin, fr.one, warm))
		}
		flateRound := func() {
			cold, warm := b.TempDir(), b.TempDir()
			flateCold = append(flateCold, fr.flate(b, flateBin, fr.one, cold))
			fr.flate(b, flateBin, fr.two, warm)
			flateWarm = append(flateWarm, fr.flate(b, flateBin, fr.one, warm))
		}
		if r%2 == 0 {
			gateRound()
			flateRound()
		} else {
			flateRound()
			gateRound()
		}
	}
	b.StopTimer()
	reportRatios(b, "cold", "-x-flate", gateCold, flateCold)
	reportRatios(b, "warm", "-x-flate", gateWarm, flateWarm)
	fmt.Printf("  %s (load average %s at the start, %s at the end):\n", fr.name, load0, loadAverage())
	fmt.Printf("    %-14s %s\n", "flate, cold", flateCold.line(flateCold))
	fmt.Printf("    %-14s %s (target <= 0.50x)\n", "gate, cold", gateCold.line(flateCold))
	fmt.Printf("    %-14s %s\n", "flate, warm", flateWarm.line(flateWarm))
	fmt.Printf("    %-14s %s (target <= 0.25x)\n", "gate, warm", gateWarm.line(flateWarm))
}
