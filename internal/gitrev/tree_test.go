package gitrev

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// linkTree commits a tree with a directory, an executable, a submodule and symlinks: one
// within the tree, one out through "..", one absolute, and two that point at each other.
func linkTree(t *testing.T, r *gittest.Repo, outside string) string {
	t.Helper()
	file := r.Blob("a: 1\n")
	script := r.Blob("#!/bin/sh\n")
	apps := r.Tree("100644 blob "+file+"\tclaim.yaml", "100755 blob "+script+"\trun.sh")
	return r.CommitTree(r.Tree(
		"040000 tree "+apps+"\tapps",
		"120000 blob "+r.Blob("apps")+"\tcurrent",
		"120000 blob "+r.Blob("../apps/claim.yaml")+"\tapps-link",
		"120000 blob "+r.Blob("../../etc")+"\tup",
		"120000 blob "+r.Blob(outside)+"\tescape",
		"120000 blob "+r.Blob("loop-b")+"\tloop-a",
		"120000 blob "+r.Blob("loop-a")+"\tloop-b",
		"160000 commit "+r.Git("rev-parse", "HEAD")+"\tvendor",
	), "links")
}

func openTree(t *testing.T, r *gittest.Repo, rev string) *Tree {
	t.Helper()
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := repo.OpenTree(t.Context(), rev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// A revision is read from git's objects: nothing is written under its root, and what is read
// is what was committed; a symlink is followed within the revision only.
func TestTreeReadsWithoutWriting(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := openTree(t, r, linkTree(t, r, outside))
	at := func(p string) string { return filepath.Join(tr.Root(), filepath.FromSlash(p)) }
	for p, want := range map[string]string{"apps/claim.yaml": "a: 1\n", "current/claim.yaml": "a: 1\n", "current/run.sh": "#!/bin/sh\n"} {
		if got, err := tr.ReadFile(at(p)); err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	if fi, err := tr.Stat(at("current/run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("current/run.sh: %v %v, want an executable file", fi, err)
	}
	if fi, err := tr.Lstat(at("current")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(current) = %v, %v; want a symlink", fi, err)
	}
	if fi, err := tr.Stat(at("vendor")); err != nil || !fi.IsDir() {
		t.Errorf("vendor: %v, want the submodule as an empty directory", err)
	}
	if got, err := tr.Readlink(at("escape")); err != nil || got != outside {
		t.Errorf("Readlink(escape) = %q, %v; want the target as committed", got, err)
	}
	entries, err := tr.ReadDir(at("current"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, ",") != "claim.yaml,run.sh" {
		t.Errorf("ReadDir(current) = %v, %v", names, err)
	}
	for _, p := range []string{"escape/secret", "up", "apps-link"} {
		if _, err := tr.ReadFile(at(p)); !errors.Is(err, ErrEscape) {
			t.Errorf("ReadFile(%s) = %v, want ErrEscape", p, err)
		}
	}
	if _, err := tr.Stat(at("loop-a")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Stat(loop-a) = %v, want ELOOP", err)
	}
	for _, p := range []string{tr.Root() + "/../" + filepath.Base(outside) + "/secret", outside + "/secret", "/etc/passwd"} {
		if _, err := tr.ReadFile(p); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s) = %v, want ErrOutside", p, err)
		}
	}
	if _, err := tr.ReadFile(at("missing.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing.yaml) = %v, want fs.ErrNotExist", err)
	}
	if left, _ := os.ReadDir(tr.Root()); len(left) > 0 {
		t.Errorf("reading the revision wrote %s under its root", left[0].Name())
	}
	var walked []string
	if err := WalkDir(tr, at("apps"), func(p string, d fs.DirEntry, err error) error {
		walked = append(walked, strings.TrimPrefix(p, tr.Root()))
		return err
	}); err != nil || strings.Join(walked, ",") != "/apps,/apps/claim.yaml,/apps/run.sh" {
		t.Errorf("WalkDir(apps) = %v, %v", walked, err)
	}
	// A reader that needs the disk gets the revision written out, at the same paths.
	if err := tr.OnDisk(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(at("current/claim.yaml")); err != nil || string(got) != "a: 1\n" {
		t.Errorf("on disk: current/claim.yaml = %q, %v", got, err)
	}
}

// A tree git fsck would flag is refused when opened, as by Snapshot.
func TestOpenTreeRefusesCraftedTrees(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	sub := r.Tree("100644 blob " + r.Blob("x") + "\tf")
	link := r.Blob("/tmp")
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, entries := range map[string][]string{
		"duplicateEntries": {"120000 blob " + link + "\ta", "040000 tree " + sub + "\ta"},
		`".git"`:           {"040000 tree " + sub + "\t.git"},
		`".."`:             {"040000 tree " + sub + "\t.."},
	} {
		tr, err := repo.OpenTree(t.Context(), r.CommitTree(r.Tree(entries...), name))
		if err == nil {
			_ = tr.Close()
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("OpenTree = %v, want an error naming %s", err, name)
		}
	}
}

// Reads are bounded: a file above the per-file limit is refused, and so is a read that would
// take the bytes read from the revision past its total (the same large blob named many
// times, read again and again), before git is asked for it.
func TestTreeReadsAreBounded(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	big := r.Blob(strings.Repeat("y", 4096))
	commit := largeTree(r, big, 8)
	tr := openTree(t, r, commit)
	tr.blobs.lim = limits{blob: 4095, total: 1 << 20}
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "f00.bin")); err == nil || !strings.Contains(err.Error(), "above the limit of 4095 bytes for a file") {
		t.Errorf("a file above the per-file limit: %v", err)
	}
	long := openTree(t, r, r.CommitTree(r.Tree("120000 blob "+r.Blob(strings.Repeat("apps/", 1000))+"\tlong"), "long link"))
	if _, err := long.Stat(filepath.Join(long.Root(), "long")); err == nil || !strings.Contains(err.Error(), "symlink target too long") {
		t.Errorf("a symlink target of 5,000 bytes: %v", err)
	}
	tr2 := openTree(t, r, commit)
	tr2.blobs.lim = limits{blob: 1 << 20, total: 5 * 4096} // nothing cached
	var err error
	n := 0
	for ; n < 8 && err == nil; n++ {
		_, err = tr2.ReadFile(filepath.Join(tr2.Root(), "f0"+string(rune('0'+n))+".bin"))
	}
	if err == nil || n != 6 || !strings.Contains(err.Error(), "above the limit of 20480") {
		t.Errorf("read %d files of 4 KiB under a 20 KiB budget, last error %v", n, err)
	}
}

// Cancelling the context a revision was opened with stops its git process: the next read
// fails with the cancellation, and no cat-file is left running.
func TestTreeStopsWithItsContext(t *testing.T) {
	r := gittest.New(t, map[string]string{"apps/a.yaml": "a: 1\n", "apps/b.yaml": "b: 1\n"})
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	tr, err := repo.OpenTree(ctx, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "apps/a.yaml")); err != nil {
		t.Fatal(err)
	}
	proc := tr.blobs.cat.cmd.Process
	cancel()
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "apps/b.yaml")); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}
	if err := proc.Signal(syscall.Signal(0)); err == nil {
		t.Error("git cat-file still runs after the cancel")
	}
}

// Sub confines reads to a directory of the revision (a source root below the top level): a
// path outside it, or a symlink from inside it to elsewhere in the revision, is refused.
func TestSubConfinesToItsRoot(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	cm := r.Blob("a: 1\n")
	base := r.Tree("100644 blob " + cm + "\tcm.yaml")
	k8s := r.Tree("100644 blob "+cm+"\town.yaml", "120000 blob "+r.Blob("../base")+"\tshared", "120000 blob "+r.Blob("own.yaml")+"\talias.yaml")
	tr := openTree(t, r, r.CommitTree(r.Tree("040000 tree "+base+"\tbase", "040000 tree "+k8s+"\tk8s"), "sub"))
	sub := Sub(tr, filepath.Join(tr.Root(), "k8s"))
	if got, err := sub.ReadFile(filepath.Join(sub.Root(), "alias.yaml")); err != nil || string(got) != "a: 1\n" {
		t.Errorf("a link within the sub-root: %q, %v", got, err)
	}
	if _, err := sub.ReadFile(filepath.Join(sub.Root(), "shared", "cm.yaml")); !errors.Is(err, ErrEscape) {
		t.Errorf("a link out of the sub-root: %v, want ErrEscape", err)
	}
	if _, err := sub.ReadDir(filepath.Join(sub.Root(), "shared")); !errors.Is(err, ErrEscape) {
		t.Errorf("listing through a link out of the sub-root: %v, want ErrEscape", err)
	}
	if _, err := sub.ReadFile(filepath.Join(tr.Root(), "base", "cm.yaml")); !errors.Is(err, ErrOutside) {
		t.Errorf("a path outside the sub-root: %v, want ErrOutside", err)
	}
	if _, err := tr.ReadFile(filepath.Join(tr.Root(), "k8s", "shared", "cm.yaml")); err != nil {
		t.Errorf("the same link from the whole revision: %v", err)
	}
}

// resolve answers a listed path from its node at once; it must answer every path, listed or
// not, through links or not, followed or not, exactly as the walk a component at a time.
func TestResolveAsWalk(t *testing.T) {
	r := gittest.New(t, map[string]string{"seed": "x"})
	tr := openTree(t, r, linkTree(t, r, "/etc"))
	names := []string{"", ".", "missing", "apps/missing", "apps/claim.yaml/x", "current/claim.yaml", "current/run.sh",
		"current/missing", "apps-link/x", "up/passwd", "escape/passwd", "loop-a/x", "vendor/x", "apps/../current"}
	for p := range tr.nodes {
		names = append(names, p)
	}
	for _, name := range names {
		for _, follow := range []bool{false, true} {
			abs := filepath.Join(tr.Root(), name)
			rel, err := tr.rel("open", abs)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := tr.resolve("open", abs, follow)
			want, wantErr := tr.walk("open", abs, rel, follow)
			if got != want || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("resolve(%q, follow %v) = %v, %v; the walk: %v, %v", name, follow, got, gotErr, want, wantErr)
			}
		}
	}
}
