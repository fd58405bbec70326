package gitrev

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// largeTree commits a tree of n entries that all name blob (a tree may name a blob any number
// of times, so the repository stays small) and returns the commit.
func largeTree(r *gittest.Repo, blob string, n int) string {
	var entries []string
	for i := range n {
		entries = append(entries, fmt.Sprintf("100644 blob %s\tf%02d.bin", blob, i))
	}
	return r.CommitTree(r.Tree(entries...), fmt.Sprintf("%d large files", n))
}

// TestSnapshotCountsBeforeWriting is issue 25 item 5: a revision's size was counted while it
// was written, so one just under the 2 GiB limit landed in memory-backed /dev/shm, and one
// above it wrote up to 2 GiB before failing on whichever file crossed the line. The total is
// now counted from the tree before anything is written: above the limit nothing is written
// and the error names the revision's total; above maxInMemory it goes to the disk's
// temporary directory.
func TestSnapshotCountsBeforeWriting(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	blob := r.Blob(strings.Repeat("\x00", maxBlob))
	tooLarge := largeTree(r, blob, 21) // 2.05 GiB
	s, err := repo.Snapshot(t.Context(), tooLarge)
	if err == nil {
		s.Close()
		t.Fatal("a revision above 2 GiB was extracted")
	}
	if !strings.Contains(err.Error(), "2.1 GiB) in 21 files") || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("the error does not name the revision's total: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("the refused revision left %v", left)
	}

	os.Unsetenv("TMPDIR")          // the default: /dev/shm for small revisions
	large := largeTree(r, blob, 3) // 300 MiB: above maxInMemory
	s, err = repo.Snapshot(t.Context(), large)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.HasPrefix(s.Dir, "/dev/shm/") {
		t.Errorf("a %d MiB revision was extracted into memory (%s)", 3*maxBlob>>20, s.Dir)
	}
	if fi, err := os.Stat(filepath.Join(s.Dir, "f02.bin")); err != nil || fi.Size() != maxBlob {
		t.Errorf("f02.bin: %v", err)
	}
}
