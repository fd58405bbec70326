package gitrev

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// partialClone clones src with --filter=blob:none and no checkout, then reads the blobs of
// fetched paths into it (a CI job's sparse, blobless checkout), so every other blob is missing.
func partialClone(t *testing.T, src *gittest.Repo, fetched ...string) string {
	t.Helper()
	src.Git("config", "uploadpack.allowFilter", "true")
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.Run(t, filepath.Dir(dir), "-c", "protocol.file.allow=always", "clone", "--quiet", "--no-local", "--filter=blob:none", "--no-checkout", "file://"+src.Dir, dir)
	for _, p := range fetched {
		gittest.Run(t, dir, "-c", "protocol.file.allow=always", "cat-file", "-p", "HEAD:"+p)
	}
	return dir
}

// A partial clone missing blobs outside the paths the build reads is not refused: its tree is
// listed, the files it holds are read, a file whose blob is missing fails with ErrMissingBlob
// (a gap, never "absent"), and nothing is fetched from the promisor remote (a fetch would be
// network: the blob is still missing afterwards).
func TestPartialCloneReadsWhatItHolds(t *testing.T) {
	src := gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"docs/big.md":             "not needed by any build\n",
	})
	dir := partialClone(t, src, "clusters/prod/apps.yaml")
	missing := func() bool {
		cmd := exec.Command("git", "-C", dir, "cat-file", "-e", "HEAD:docs/big.md")
		cmd.Env = append(cmd.Environ(), "GIT_NO_LAZY_FETCH=1")
		return cmd.Run() != nil
	}
	if !missing() {
		t.Fatal("the clone holds docs/big.md: the test does not make a partial clone")
	}
	repo, err := OpenRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := repo.OpenTree(t.Context(), "HEAD")
	if err != nil {
		t.Fatalf("a partial clone was refused: %v", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	got, err := tr.ReadFile(filepath.Join(tr.Root(), "clusters/prod/apps.yaml"))
	if err != nil || len(got) == 0 {
		t.Fatalf("reading a file the clone holds: %q, %v", got, err)
	}
	if _, err := tr.Stat(filepath.Join(tr.Root(), "docs/big.md")); err != nil {
		t.Fatalf("a missing blob is still listed: %v", err)
	}
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "docs/big.md")); !errors.Is(err, ErrMissingBlob) {
		t.Fatalf("reading a missing blob: %v, want ErrMissingBlob", err)
	}
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "clusters/prod/apps.yaml")); err != nil {
		t.Fatalf("the reader stopped after a missing blob: %v", err)
	}
	if !missing() {
		t.Fatal("the missing blob was fetched from the promisor remote")
	}
	// Writing the revision out needs every blob: it fails naming the file, never writes a tree
	// that silently lacks it.
	if err := tr.OnDisk(t.Context()); !errors.Is(err, ErrMissingBlob) {
		t.Fatalf("writing out a partial revision: %v, want ErrMissingBlob", err)
	}
}

// A copy that is no partial clone but lacks one blob (a mirror whose largest files were left
// out: `git ls-tree -l` prints BAD for its size) is read the same way: the files it holds
// are read, the missing one fails with ErrMissingBlob, and the commit is not refused.
// Found on joryirving/home-ops: a mirror without one image under docs/ was refused whole.
func TestMirrorMissingABlobReadsWhatItHolds(t *testing.T) {
	src := gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"docs/big.jpg":            "an image no build reads\n",
	})
	oid := strings.TrimSpace(src.Git("rev-parse", "HEAD:docs/big.jpg"))
	if err := os.Remove(filepath.Join(src.Dir, ".git", "objects", oid[:2], oid[2:])); err != nil {
		t.Fatalf("removing the loose blob: %v", err)
	}
	repo, err := OpenRepo(src.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := repo.OpenTree(t.Context(), "HEAD")
	if err != nil {
		t.Fatalf("a copy missing one blob was refused: %v", err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	if got, err := tr.ReadFile(filepath.Join(tr.Root(), "clusters/prod/apps.yaml")); err != nil || len(got) == 0 {
		t.Fatalf("reading a file the copy holds: %q, %v", got, err)
	}
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "docs/big.jpg")); !errors.Is(err, ErrMissingBlob) {
		t.Fatalf("reading the missing blob: %v, want ErrMissingBlob", err)
	}
}
