package gitrev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// Listing a tree through one cat-file process gives exactly `git ls-tree -r -t -l`'s entries
// (the reference, lsTree): the same paths in the same order, modes as git reads them (legacy
// 100664, 100775, 100654: only the owner's execute bit counts), types, ids and sizes, for
// nested directories, names git sorts unusually ("a.b" before "a/"), an empty directory,
// symlinks, executables, a submodule, the same tree at two paths, and a blob the copy does
// not hold (size missingBlob, ls-tree's BAD).
func TestListTreeCatAsLsTree(t *testing.T) {
	files := map[string]string{
		"apps/a/deploy.yaml":   "a\n",
		"apps/a.b":             "sorts before apps/a/\n",
		"apps/b/c/d/e.yaml":    "deep\n",
		" lead space.yaml":     "space\n",
		"clusters/main/x.yaml": "x\n",
		"tab\tname.yaml":       "tab\n",
	}
	for i := range 200 { // more requests than a pipe holds at once: written while answered
		files[fmt.Sprintf("many/%03d/f.yaml", i)] = fmt.Sprintf("n: %d\n", i)
	}
	r := gittest.New(t, files)
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	sub := r.Tree("100644 blob " + r.Blob("s\n") + "\tf.yaml")
	gone := r.Blob("a blob removed below\n")
	crafted := r.CommitTree(r.Tree(
		"040000 tree "+r.Git("rev-parse", "HEAD^{tree}")+"\thead",
		"040000 tree "+sub+"\tone",
		"040000 tree "+sub+"\ttwo",
		"040000 tree "+r.Git("hash-object", "-t", "tree", "-w", os.DevNull)+"\tempty",
		"100755 blob "+r.Blob("#!/bin/sh\n")+"\trun.sh",
		"120000 blob "+r.Blob("one/f.yaml")+"\tlink",
		"160000 commit "+r.Git("rev-parse", "HEAD")+"\tvendor",
		"100644 blob "+gone+"\tgone.bin",
	), "every kind of entry")
	legacy := r.CommitTree(literalTree(t, r, map[string]string{"100664": "legacy.yaml", "100775": "group-exec.sh", "100654": "group-only.sh"}), "legacy modes")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", gone[:2], gone[2:])); err != nil {
		t.Fatalf("removing a loose blob: %v", err)
	}
	for _, rev := range []string{"HEAD", crafted, legacy} {
		commit, err := repo.Resolve(t.Context(), rev)
		if err != nil {
			t.Fatal(err)
		}
		want, err := repo.lsTree(t.Context(), commit)
		if err != nil {
			t.Fatal(err)
		}
		cat := newCatFile(t.Context(), repo)
		got, err := repo.listTreeCat(t.Context(), cat, commit)
		cat.close()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(treeEntry{})); d != "" {
			t.Errorf("%s (-ls-tree +cat-file):\n%s", rev, d)
		}
		if len(want) < 2 {
			t.Errorf("%s: ls-tree listed only %d entries: the test lists too little", rev, len(want))
		}
	}
}

// literalTree writes a tree object with the given modes (mode -> name, each a small file),
// which git mktree would normalise: git hash-object --literally stores it as is.
func literalTree(t *testing.T, r *gittest.Repo, modes map[string]string) string {
	t.Helper()
	var names []string
	byName := map[string]string{}
	for mode, name := range modes {
		names = append(names, name)
		byName[name] = mode
	}
	for i := range names { // tree order: by name (no directories here)
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	var obj strings.Builder
	for _, name := range names {
		oid := r.Blob(name + "\n")
		raw := make([]byte, len(oid)/2)
		for i := range raw {
			var b byte
			for _, c := range oid[2*i : 2*i+2] {
				b = b<<4 | byte(strings.IndexRune("0123456789abcdef", c))
			}
			raw[i] = b
		}
		obj.WriteString(byName[name] + " " + name + "\x00" + string(raw))
	}
	f := filepath.Join(t.TempDir(), "tree")
	if err := os.WriteFile(f, []byte(obj.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return r.Git("hash-object", "--literally", "-t", "tree", "-w", f)
}

// Revisions are resolved through the same process as they are read, as rev-parse resolves
// them: names, abbreviations and expressions resolve to their commit; an unknown, ambiguous or
// non-commit name, one starting with "-" and one that cannot be sent on a line are bad input.
func TestResolveThroughCatFile(t *testing.T) {
	r := gittest.New(t, map[string]string{"a.yaml": "a\n"})
	first := r.Git("rev-parse", "HEAD")
	second := r.Commit("second", map[string]string{"b.yaml": "b\n"})
	r.Git("tag", "-a", "-m", "annotated", "v1", first)
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cat := newCatFile(t.Context(), repo)
	defer cat.close()
	for rev, want := range map[string]string{"HEAD": second, "HEAD~1": first, "v1": first, second[:10]: second} {
		got, err := repo.resolveWith(t.Context(), cat, rev)
		if err != nil || got != want {
			t.Errorf("%q = %q, %v; want %s", rev, got, err, want)
		}
		if ref, err := repo.Resolve(t.Context(), rev); err != nil || ref != got {
			t.Errorf("%q: rev-parse says %q, %v", rev, ref, err)
		}
	}
	for _, rev := range []string{"no-such-branch", "-x", "HEAD:a.yaml", "HEAD\nHEAD", "HEAD\x00", "", "HEAD^{tree}"} {
		got, err := repo.resolveWith(t.Context(), cat, rev)
		if exitcode.Of(err) != exitcode.Usage {
			t.Errorf("%q = %q, %v; want a usage error", rev, got, err)
		}
	}
	if got, err := repo.resolveWith(t.Context(), cat, "HEAD"); err != nil || got != second {
		t.Errorf("after the unknown revisions: %q, %v", got, err)
	}
}

// A comparison of two commits of a partial clone reads both through its one process: each
// revision's files the clone holds are read, a missing blob is ErrMissingBlob on both sides,
// and the cat-file process that died asking for a blob the clone lacks (lazy fetching is
// off) does not fail the other revision's reads.
func TestPartialCloneRevisions(t *testing.T) {
	src := gittest.New(t, map[string]string{
		"clusters/prod/apps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		"docs/big.md":             "not needed by any build\n",
	})
	src.Commit("second", map[string]string{"clusters/prod/apps.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n", "docs/other.md": "x\n"})
	dir := partialClone(t, src, "clusters/prod/apps.yaml")
	gittest.Run(t, dir, "-c", "protocol.file.allow=always", "cat-file", "-p", "HEAD~1:clusters/prod/apps.yaml")
	repo, err := OpenRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	revs, err := OpenRevisions(t.Context(), repo, "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer revs.Close()
	for name, get := range map[string]func() (Files, error){"base": revs.BaseFiles, "candidate": revs.CandidateFiles} {
		f, err := get()
		if err != nil {
			t.Fatalf("%s: a partial clone was refused: %v", name, err)
		}
		if got, err := f.ReadFile(filepath.Join(f.Root(), "clusters/prod/apps.yaml")); err != nil || len(got) == 0 {
			t.Errorf("%s: reading a file the clone holds: %q, %v", name, got, err)
		}
		if _, err := f.ReadFile(filepath.Join(f.Root(), "docs/big.md")); !errors.Is(err, ErrMissingBlob) {
			t.Errorf("%s: reading a missing blob: %v, want ErrMissingBlob", name, err)
		}
	}
	ch, err := revs.Changes(t.Context(), repo)
	if err != nil || !cmp.Equal(ch.Paths, []string{"clusters/prod/apps.yaml", "docs/other.md"}) {
		t.Errorf("changes %+v, %v", ch, err)
	}
}

// The candidate's listing asks git only for what the base's did not read: the tree objects
// along the changed path and the changed blob's size; its entries are still ls-tree's.
func TestCandidateListingAsksOnlyChanges(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("apps/app-%02d/release.yaml", i)] = fmt.Sprintf("app: %d\n", i)
		files[fmt.Sprintf("apps/app-%02d/kustomization.yaml", i)] = "resources: [release.yaml]\n"
	}
	r := gittest.New(t, files)
	base := r.Git("rev-parse", "HEAD")
	cand := r.Commit("one bump", map[string]string{"apps/app-07/release.yaml": "app: 7\nimage: v2\n"})
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	revs, err := OpenRevisions(t.Context(), repo, base, cand)
	if err != nil {
		t.Fatal(err)
	}
	defer revs.Close()
	if _, err := revs.CandidateFiles(); err != nil {
		t.Fatal(err)
	}
	baseTrees, baseBlobs := 1+30, 30+1 // apps and its 30 directories; 30 releases and one kustomization text
	if got, want := revs.cat.known.asked, baseTrees+baseBlobs+2+1; got != want {
		t.Errorf("both listings asked git for %d objects, want %d: the base's %d and %d, then apps, apps/app-07 and the bumped release", got, want, baseTrees, baseBlobs)
	}
	for name, rev := range map[string]string{"base": base, "candidate": cand} {
		want, err := repo.lsTree(t.Context(), rev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.listTreeCat(t.Context(), revs.cat, rev) // every object known by now
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(treeEntry{})); d != "" {
			t.Errorf("%s listed from the known objects (-ls-tree +cat-file):\n%s", name, d)
		}
	}
}
