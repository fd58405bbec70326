package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// snapshotHas reports whether a snapshot directory in tmp holds root-relative p.
func snapshotHas(t *testing.T, tmp, p string) bool {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "gitops-snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Lstat(filepath.Join(d, p)); err == nil {
			return true
		}
	}
	return false
}

// snapshotsHave reports whether both revisions' snapshot directories in tmp hold p: for the
// last file ls-tree lists, whether both revisions are written.
func snapshotsHave(t *testing.T, tmp, p string) bool {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "gitops-snapshot-*"))
	if err != nil {
		t.Fatal(err)
	}
	have := 0
	for _, d := range dirs {
		if _, err := os.Lstat(filepath.Join(d, p)); err == nil {
			have++
		}
	}
	return have == 2
}

// Issue 36.5 item 2: SIGTERM while a revision of a very large tree was extracted left the
// process running seconds later. Whatever phase the signal meets (git listing the tree, the
// check of its entries, the directories made, the files written, the walk of what was
// written), the run must end within a second, UNKNOWN (exit 2), and leave no snapshot: what
// it cannot remove within half a second is removed by a process of its own, which must be
// done within a minute.
func TestSignalStopsExtractionOfLargeTree(t *testing.T) {
	const n = 200_000
	r := manyFiles(t, n)
	for _, tc := range []struct {
		name string
		// ready is when to send the signal: at once (git lists the tree), once a snapshot
		// directory exists (its directories are made), once a quarter of its files are
		// written, once both revisions are written (the run walks them and builds).
		ready func(tmp string) bool
	}{
		{"listing", func(string) bool { return true }},
		{"directories", func(tmp string) bool { return leftovers(t, tmp) > 0 }},
		{"files", func(tmp string) bool { return snapshotHas(t, tmp, fmt.Sprintf("bulk/d%04d/f000", n/1000/4)) }},
		{"written", func(tmp string) bool { return snapshotsHave(t, tmp, "clusters/prod/kustomization.yaml") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd, stderr := child(t, tmp, "safe-retire", "--dry-run", "--offline", "--repo", r.Dir, "--base", "many~1", "--candidate", "many", "--build-cache", "")
			deadline := time.Now().Add(2 * time.Minute)
			for !tc.ready(tmp) && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			if tc.name == "listing" {
				time.Sleep(300 * time.Millisecond) // git is listing the tree
			}
			stopped := stop(t, cmd, stderr)
			if stopped > time.Second {
				t.Errorf("ended %s after SIGTERM, want within a second", stopped.Round(time.Millisecond))
			}
			// What the run could not remove within half a second, a process of its own does.
			removed := time.Now().Add(time.Minute)
			for leftovers(t, tmp) > 0 && time.Now().Before(removed) {
				time.Sleep(50 * time.Millisecond)
			}
			if n := leftovers(t, tmp); n > 0 {
				t.Errorf("%d snapshot directories left in TMPDIR a minute later", n)
			}
		})
	}
}
