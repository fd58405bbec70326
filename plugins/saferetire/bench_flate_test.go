package saferetire_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	kfloor "github.com/kubeforensics/suite/internal/testsupport/floor"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// FlateEnv names the environment variable that may give the flate binary; by default it is
// the one `make bench`'s tool cache holds (see flateBinary).
const flateEnv = "KUBEFORENSICS_FLATE"

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

// flateRepo is one generated repository for the side-by-side run: its directory, the base
// and the candidate (one file changed), and another candidate whose gate fills a warm cache.
type flateRepo struct {
	name               string
	dir                string
	base, one, two     string
	helmReleases, apps int
}

// newFlateRepo generates n apps under l, commits them, and commits the first app's image
// bump (one) and, from the base, the second app's (two).
func newFlateRepo(b *testing.B, name string, n int, l kfloor.Layout) *flateRepo {
	fr := &flateRepo{name: name, dir: b.TempDir(), apps: n}
	_, release, _, err := kfloor.HomeOpsWith(fr.dir, n, l)
	if err != nil {
		b.Fatal(err)
	}
	every := l.DeploymentEvery
	if every == 0 {
		every = 3
	}
	if every > 1 {
		fr.helmReleases = n - n/every
	}
	g := gittest.In(b, fr.dir, nil)
	fr.base = g.Git("rev-parse", "HEAD")
	fr.one = g.Commit("one image bump", map[string]string{release: kfloor.HomeOpsReleaseWith(l, "app-0000", "1.1.0")})
	g.Git("checkout", "--quiet", "-B", "two", fr.base)
	fr.two = g.Commit("another image bump", map[string]string{strings.ReplaceAll(release, "app-0000", "app-0001"): kfloor.HomeOpsReleaseWith(l, "app-0001", "1.1.0")})
	g.Git("gc", "--quiet")
	return fr
}

// gate runs the offline gate from base to cand through the command, with its caches under
// cacheDir, and returns the wall time.
func (fr *flateRepo) gate(b *testing.B, cand, cacheDir string) time.Duration {
	args := []string{"--dry-run", "--offline", "--repo", fr.dir, "--base", fr.base, "--candidate", cand, "-o", "json",
		"--build-cache", filepath.Join(cacheDir, "builds"), "--render-cache", filepath.Join(cacheDir, "renders")}
	start := time.Now()
	out, errOut, code := benchInvoke(args...)
	if code != 0 {
		b.Fatalf("%s: gate exit %d\n%s\n%s", fr.name, code, out, errOut)
	}
	return time.Since(start)
}

// benchInvoke runs the command in this process, as the other benchmarks do.
func benchInvoke(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	streams := genericiooptions.IOStreams{In: &bytes.Buffer{}, Out: &out, ErrOut: &errOut}
	cmd := saferetire.NewCmdSafeRetire(streams, func(string) string { return "" })
	code := cli.Run(context.Background(), cmd, args, &errOut)
	return out.String(), errOut.String(), code
}

// flate runs the flate binary with args in dir, bounded, with HOME and XDG_CACHE_HOME at
// home (its caches), and returns the wall time.
func runFlate(b *testing.B, bin, dir, home string, args ...string) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("flate %s in %s: %v\n%s", strings.Join(args, " "), dir, err, tail(out.String(), 4000))
	}
	took := time.Since(start)
	// A run that did not see the change measured nothing: its arguments are wrong.
	if !strings.Contains(out.String(), "app-0000") && !strings.Contains(out.String(), "app-0001") {
		b.Fatalf("flate %s in %s did not report the changed app; the comparison would be meaningless\n%s", strings.Join(args, " "), dir, tail(out.String(), 4000))
	}
	return took
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// ratioLine prints one comparison.
func ratioLine(what string, gate, flate time.Duration, target string) {
	fmt.Printf("  %-58s gate %7d ms  flate %7d ms  %5.2fx (target <= %s)\n", what, gate.Milliseconds(), flate.Milliseconds(), float64(gate)/float64(flate), target)
}

// flateDiffArgs are flate's arguments for the same question the gate answers: what the
// working tree (checked out at the candidate) renders against the base revision.
func flateDiffArgs(dir, base string) []string {
	return []string{"diff", "all", "--no-progress", "-p", dir, "--base", base}
}

// checkout puts rev in fr's working tree, for flate, which renders the working tree.
func (fr *flateRepo) checkout(b *testing.B, rev string) {
	gittest.Run(b, fr.dir, "checkout", "--quiet", "--detach", rev)
}

// BenchmarkFlate runs the offline gate and flate (https://github.com/home-operations/flate,
// run as another program, when its binary is at hand: see flateBinary) side by side on the
// same one-file pull requests: the generated 1,000-Kustomization repository with only
// Deployments (one image bump; issue targets: <= 0.5x flate cold, <= 0.25x warm), and the
// repository of BenchmarkHelmGate (102 paths, 80 HelmReleases of the repository's own chart).
// Cold is with empty caches (a fresh HOME for flate); warm with the caches a run on another
// one-file change of the same base filled. Without the binary it is skipped, saying so.
func BenchmarkFlate(b *testing.B) {
	if testing.Short() {
		b.Skip("builds generated repositories")
	}
	bin := flateBinary()
	if bin == "" {
		b.Skipf("flate not found: set $%s, or build it into kubeforensics/tools/flate-bin/flate under the user cache directory (go install github.com/home-operations/flate/cmd/flate@v0.6.5)", flateEnv)
	}
	fmt.Printf("safe-retire offline gate against %s, one-file change, wall time of one run each:\n", bin)
	b.Run("deployments-1000", func(b *testing.B) {
		benchFlate(b, bin, newFlateRepo(b, "1,000 Kustomizations, all Deployments", 1000, kfloor.Layout{DeploymentEvery: 1}))
	})
	b.Run("helmreleases-80", func(b *testing.B) {
		benchFlate(b, bin, newFlateRepo(b, "102 paths, 80 HelmReleases", helmBenchApps, kfloor.Layout{DeploymentEvery: 5, Chart: appChartFiles()}))
	})
}

// benchFlate measures the gate and flate on fr, cold and warm, and prints the ratios.
func benchFlate(b *testing.B, bin string, fr *flateRepo) {
	b.ResetTimer()
	coldDir, warmDir := b.TempDir(), b.TempDir()
	gateCold := fr.gate(b, fr.one, coldDir)
	fr.gate(b, fr.two, warmDir)
	gateWarm := fr.gate(b, fr.one, warmDir)
	coldHome, warmHome := b.TempDir(), b.TempDir()
	fr.checkout(b, fr.one)
	flateCold := runFlate(b, bin, fr.dir, coldHome, flateDiffArgs(fr.dir, fr.base)...)
	fr.checkout(b, fr.two)
	runFlate(b, bin, fr.dir, warmHome, flateDiffArgs(fr.dir, fr.base)...)
	fr.checkout(b, fr.one)
	flateWarm := runFlate(b, bin, fr.dir, warmHome, flateDiffArgs(fr.dir, fr.base)...)
	b.StopTimer()
	b.ReportMetric(float64(gateCold)/float64(flateCold), "cold-x-flate")
	b.ReportMetric(float64(gateWarm)/float64(flateWarm), "warm-x-flate")
	ratioLine(fr.name+", cold", gateCold, flateCold, "0.50")
	ratioLine(fr.name+", warm", gateWarm, flateWarm, "0.25")
}
