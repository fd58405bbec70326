package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// manyFiles commits, with git fast-import (seconds for hundreds of thousands of entries), a
// base revision of n files (one blob named n times, 1,000 to a directory, so the repository
// stays small while its tree is large) and a candidate that adds one, and returns the
// repository.
func manyFiles(t *testing.T, n int) *gittest.Repo {
	t.Helper()
	r := gittest.New(t, map[string]string{"clusters/prod/kustomization.yaml": "resources: []\n"})
	head := r.Git("rev-parse", "HEAD")
	var b strings.Builder
	b.WriteString("blob\nmark :1\ndata 2\nx\n\n")
	fmt.Fprintf(&b, "commit refs/heads/many\ncommitter t <t@example.com> 1700000000 +0000\ndata 4\nmany\nfrom %s\n", head)
	for i := range n {
		fmt.Fprintf(&b, "M 100644 :1 bulk/d%04d/f%03d\n", i/1000, i%1000)
	}
	b.WriteString("\ncommit refs/heads/many\ncommitter t <t@example.com> 1700000001 +0000\ndata 4\nmore\nM 100644 :1 bulk/extra\n\n")
	gittest.RunInput(t, r.Dir, b.String(), "fast-import", "--quiet")
	return r
}

// runsChild reports whether a child process of pid has arg on its command line (Linux).
func runsChild(t *testing.T, pid int, arg string) bool {
	t.Helper()
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, p := range procs {
		stat, err := os.ReadFile(filepath.Join("/proc", p.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its last ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		if cl, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline")); err == nil && bytes.Contains(cl, []byte("\x00"+arg+"\x00")) {
			return true
		}
	}
	return false
}

// Issue 36.5 item 2: SIGTERM while a revision of a very large tree was extracted left the
// process running seconds later. Revisions are now read from git's objects, not written out;
// whatever phase the signal meets (git listing the tree, the check of its entries, the walk of
// both revisions and the builds, reading files through cat-file), the run must end within a
// second, UNKNOWN (exit 2), and leave nothing in the temporary directory (a revision's empty
// root included): what it cannot remove within half a second is removed by a process of its
// own, which must be done within three minutes.
func TestSignalStopsExtractionOfLargeTree(t *testing.T) {
	const n = 200_000
	r := manyFiles(t, n)
	for _, tc := range []struct {
		name string
		// ready is when to send the signal: once git runs and no revision is open yet (it
		// lists the trees: one cat-file process resolves, lists and reads both), once a
		// revision's root exists (its tree listed and checked: the run walks it), once both
		// exist, once both exist and files are read from git's objects.
		ready func(tmp string, pid int) bool
	}{
		{"listing", func(tmp string, pid int) bool { return runsChild(t, pid, "cat-file") && leftovers(t, tmp) == 0 }},
		{"opened", func(tmp string, _ int) bool { return leftovers(t, tmp) > 0 }},
		{"both opened", func(tmp string, _ int) bool { return leftovers(t, tmp) > 1 }},
		{"reading", func(tmp string, pid int) bool { return leftovers(t, tmp) > 1 && runsChild(t, pid, "cat-file") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd, stderr := child(t, tmp, "safe-retire", "--dry-run", "--offline", "--repo", r.Dir, "--base", "many~1", "--candidate", "many", "--build-cache", "")
			deadline := time.Now().Add(2 * time.Minute)
			for !tc.ready(tmp, cmd.Process.Pid) && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			stopped := stop(t, cmd, stderr)
			if stopped > time.Second {
				t.Errorf("ended %s after SIGTERM, want within a second", stopped.Round(time.Millisecond))
			}
			// What the run could not remove within half a second, a process of its own does.
			removed := time.Now().Add(3 * time.Minute)
			for leftovers(t, tmp) > 0 && time.Now().Before(removed) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := leftovers(t, tmp); n > 0 {
				out, _ := exec.Command("sh", "-c", "find "+tmp+" | wc -l; ps -eo pid,etime,cmd | grep 'rm -rf' | grep -v grep").CombinedOutput()
				t.Errorf("%d snapshot directories left in TMPDIR three minutes later:\n%s", n, out)
			}
		})
	}
}
