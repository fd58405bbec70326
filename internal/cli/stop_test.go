package cli_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubeforensics/suite/internal/cli"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/plugins/fluxchain"
	"github.com/kubeforensics/suite/plugins/saferetire"
)

// slowTier is a repository whose one tier, "slow", takes seconds to build within every limit
// on a build's work (kbuild.MaxKustomizationLoads and the others) while its revisions stay a
// handful of files, quick to extract on a loaded machine: width ConfigMaps in one file, and
// slowPatches JSON patches that each target every ConfigMap, so kustomize applies
// width*slowPatches patches in memory. (Issue 25 item 3's tier, an overlay whose levels
// include the level below twice, now ends at those limits instead; a tier of thousands of
// small applications made extraction, not the build, the slow part.) The entry path declares
// the one Flux Kustomization.
func slowTier(width int) map[string]string {
	files := map[string]string{
		"clusters/prod/kustomization.yaml": "resources:\n- slow.yaml\n",
		"clusters/prod/slow.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: slow
  namespace: flux-system
spec:
  interval: 10m
  path: ./slow
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	}
	var k strings.Builder
	k.WriteString("resources:\n- configmaps.yaml\npatches:\n")
	for j := range slowPatches {
		fmt.Fprintf(&k, "- target:\n    kind: ConfigMap\n  patch: |-\n    - op: add\n      path: /metadata/annotations/a%d\n      value: v\n", j)
	}
	files["slow/kustomization.yaml"] = k.String()
	files["slow/configmaps.yaml"] = slowConfigMaps(width, "base")
	return files
}

// slowPatches is how many patches slowTier applies to each of its ConfigMaps.
const slowPatches = 100

// slowConfigMaps is slowTier's ConfigMaps, the first holding v.
func slowConfigMaps(width int, v string) string {
	var b strings.Builder
	for i := range width {
		val := "base"
		if i == 0 {
			val = v
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%05d\n  namespace: default\n  annotations: {}\ndata:\n  v: %s\n", i, val)
	}
	return b.String()
}

// slowRepo commits slowTier and a second commit that changes one ConfigMap, so a gate
// between the two must build the slow tier at both revisions.
func slowRepo(t *testing.T, width int) *gittest.Repo {
	r := gittest.New(t, slowTier(width))
	r.Commit("change one ConfigMap", map[string]string{"slow/configmaps.yaml": slowConfigMaps(width, "changed")})
	return r
}

// child runs a plugin (KF_CHILD_PLUGIN) with args in a child process, TMPDIR set to tmp.
func child(t *testing.T, tmp, plugin string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPluginChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "KF_CHILD_PLUGIN="+plugin, "KF_CHILD_ARGS="+strings.Join(args, "\x1f"), "GITHUB_ACTIONS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// wait waits at most limit for cmd and returns how long it took; past limit it kills it and
// fails the test.
func wait(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running after %s\n%s", limit, stderr.String())
	}
	return 0
}

// TestTimeoutStopsBuilds is issue 25 item 3: a repository whose one tier takes minutes to
// build held the gate as long. --timeout covers the whole run, builds included: past it the
// run ends within a second or two, UNKNOWN (exit 2), naming the tier still being built, and
// the snapshots are gone.
func TestTimeoutStopsBuilds(t *testing.T) {
	r := slowRepo(t, 4000)
	for _, tc := range []struct {
		plugin string
		args   []string
	}{
		{"safe-retire", []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--build-cache", "", "--timeout", "2s"}},
		{"flux-chain", []string{"--repo", r.Dir, "--timeout", "2s"}},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			tmp := t.TempDir()
			cmd, stderr := child(t, tmp, tc.plugin, tc.args...)
			took := wait(t, cmd, stderr, 30*time.Second)
			t.Logf("ended after %s\n%s", took.Round(time.Millisecond), stderr.String())
			if took > 6*time.Second {
				t.Errorf("ended %s after starting with --timeout 2s", took.Round(time.Millisecond))
			}
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit code %d, want 2 (UNKNOWN)", code)
			}
			if !strings.Contains(stderr.String(), "--timeout 2s passed while building") || !strings.Contains(stderr.String(), "flux-system/slow") {
				t.Errorf("stderr does not name the tier still being built:\n%s", stderr.String())
			}
			if n := leftoversAfter(t, tmp); n > 0 {
				t.Errorf("%d snapshot directories left in TMPDIR", n)
			}
		})
	}
}

// TestSignalStopsBuild is issue 25 item 5: a build already running went on for 35 s after
// SIGTERM, and CI's cancel sequence then killed the process with the snapshots still on
// disk. SIGTERM during a build ends the run within a second or two, with no snapshot left.
func TestSignalStopsBuild(t *testing.T) {
	r := slowRepo(t, 4000)
	tmp := t.TempDir()
	cmd, stderr := child(t, tmp, "safe-retire", "--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--build-cache", "")
	deadline := time.Now().Add(30 * time.Second)
	for leftovers(t, tmp) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // both revisions extracted (a few files), the builds running
	stopped := stop(t, cmd, stderr)
	if stopped > 2500*time.Millisecond {
		t.Errorf("ended %s after SIGTERM, want within a second or two", stopped.Round(time.Millisecond))
	}
	if n := leftoversAfter(t, tmp); n > 0 {
		t.Errorf("%d snapshot directories left in TMPDIR", n)
	}
}

// TestLargeRevisionIsNotWritten is issue 25 item 5's other half, as revisions are now read:
// a large extraction went on for 16 s after SIGTERM. Two revisions of 1.2 GiB each (twelve
// 100 MiB files: one blob the trees name twelve times, so the repository stays small) took
// seconds to write; now that revisions are read from git's objects, files no build reads are
// never read: the run ends by itself at once (the repository declares no Kustomization: bad
// input), having written nothing, and leaves nothing behind. A stop while files are read is
// TestSignalStopsExtractionOfLargeTree's "reading".
func TestLargeRevisionIsNotWritten(t *testing.T) {
	r := gittest.New(t, map[string]string{"clusters/prod/kustomization.yaml": "resources: []\n"})
	clusters := r.Git("rev-parse", "HEAD:clusters")
	blob := r.Blob(strings.Repeat("\x00", 100<<20))
	entries := []string{"040000 tree " + clusters + "\tclusters"}
	for i := range 12 {
		entries = append(entries, fmt.Sprintf("100644 blob %s\tbulk%02d.bin", blob, i))
	}
	base := r.CommitTree(r.Tree(entries...), "base")
	cand := r.CommitTree(r.Tree(append(entries, "100644 blob "+r.Blob("x\n")+"\textra.txt")...), "candidate")
	tmp := t.TempDir()
	cmd, stderr := child(t, tmp, "safe-retire", "--dry-run", "--offline", "--repo", r.Dir, "--base", base, "--candidate", cand, "--build-cache", "")
	start := time.Now()
	err := cmd.Wait()
	took := time.Since(start)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(stderr.String(), "declares no Flux Kustomization") {
		t.Errorf("exit %v, want 3 naming the empty entry path:\n%s", err, stderr)
	}
	if took > 10*time.Second {
		t.Errorf("took %s: the 2.4 GiB of files no build reads were read", took.Round(time.Millisecond))
	}
	if n := leftovers(t, tmp); n > 0 {
		t.Errorf("%d snapshot directories left in TMPDIR", n)
	}
}

// leftoversAfter counts the snapshot directories left in tmp once the removal a stopped run
// handed to a process of its own (gitrev's removeWait) is done, waiting up to three minutes.
func leftoversAfter(t *testing.T, tmp string) int {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for leftovers(t, tmp) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	return leftovers(t, tmp)
}

// stop sends SIGTERM to the running child, checks it ends UNKNOWN saying so, and returns how
// long it took to end.
func stop(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer) time.Duration {
	t.Helper()
	if cmd.ProcessState != nil {
		t.Fatalf("the run ended before the signal\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	took := wait(t, cmd, stderr, 30*time.Second)
	t.Logf("ended %s after SIGTERM\n%s", took.Round(time.Millisecond), stderr.String())
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("exit code %d, want 2 (UNKNOWN)", code)
	}
	if !strings.Contains(stderr.String(), "stopped before the run finished") {
		t.Errorf("stderr does not say the signal stopped the run:\n%s", stderr.String())
	}
	return took
}

// TestPluginChild is the plugin process of the tests above: it runs MainAs as the binary's
// main does and exits with its code.
func TestPluginChild(t *testing.T) {
	plugin := os.Getenv("KF_CHILD_PLUGIN")
	if plugin == "" {
		t.Skip("child process of the stop tests")
	}
	os.Args = append([]string{"kubectl-" + strings.ReplaceAll(plugin, "-", "_")}, strings.Split(os.Getenv("KF_CHILD_ARGS"), "\x1f")...)
	newCmd := func(s genericiooptions.IOStreams) *cobra.Command { return saferetire.NewCmdSafeRetire(s, os.Getenv) }
	if plugin == "flux-chain" {
		newCmd = fluxchain.NewCmdFluxChain
	}
	os.Exit(cli.MainAs(newCmd, cli.FormOf(os.Args[0])))
}

// overlayBomb is issue 36.5 item 1's repository: the tier "bomb" is levels overlays deep,
// each level including the level below twice (under two name prefixes), so kustomize would
// load the bottom 2^levels times; 13 levels ran past 200 s.
func overlayBomb(levels int) map[string]string {
	files := slowTier(0)
	files["clusters/prod/slow.yaml"] = strings.ReplaceAll(strings.ReplaceAll(files["clusters/prod/slow.yaml"], "name: slow", "name: bomb"), "path: ./slow", fmt.Sprintf("path: ./bomb/l%d", levels))
	delete(files, "slow/kustomization.yaml")
	delete(files, "slow/configmaps.yaml")
	files["bomb/l0/kustomization.yaml"] = "resources:\n- cm.yaml\n"
	files["bomb/l0/cm.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n"
	for i := 1; i <= levels; i++ {
		files[fmt.Sprintf("bomb/l%d/kustomization.yaml", i)] = "resources:\n- a\n- ./b\n"
		for _, p := range []string{"a", "b"} {
			files[fmt.Sprintf("bomb/l%d/%s/kustomization.yaml", i, p)] = fmt.Sprintf("namePrefix: %s-\nresources:\n- ../../l%d\n", p, i-1)
		}
	}
	return files
}

// The gates end such a repository's run at the limit on a build's work, UNKNOWN (exit 2),
// naming the tier and the limit, long before --timeout.
func TestOverlayBombIsUnknown(t *testing.T) {
	r := gittest.New(t, overlayBomb(13))
	r.Commit("change the bottom", map[string]string{"bomb/l0/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  namespace: default\n"})
	for _, tc := range []struct {
		plugin string
		args   []string
	}{
		{"safe-retire", []string{"--dry-run", "--offline", "--repo", r.Dir, "--base", "HEAD~1", "--candidate", "HEAD", "--build-cache", "", "-o", "json"}},
		{"flux-chain", []string{"--repo", r.Dir, "-o", "json"}},
	} {
		t.Run(tc.plugin, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestPluginChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "KF_CHILD_PLUGIN="+tc.plugin, "KF_CHILD_ARGS="+strings.Join(tc.args, "\x1f"), "GITHUB_ACTIONS=")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wait(t, cmd, &out, 5*time.Minute)
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit code %d, want 2 (UNKNOWN)\n%s", code, out.String())
			}
			if s := out.String(); !strings.Contains(s, "kustomization loads") || !strings.Contains(s, "flux-system/bomb") {
				t.Errorf("the output does not name the tier and the limit:\n%s", s)
			}
		})
	}
}
