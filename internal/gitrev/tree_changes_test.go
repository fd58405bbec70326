package gitrev

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// The changes read from the two tree listings are git diff's: every kind of change between
// two commits (edit, add, delete, rename, mode, symlink, file replaced by a directory and
// back, submodule) gives the same paths as Repo.Changes, in both directions.
func TestRevisionsChangesAsGitDiff(t *testing.T) {
	g := gittest.New(t, map[string]string{
		"apps/a/deploy.yaml": "a\n",
		"apps/b/pvc.yaml":    "b\n",
		"apps/c/run.sh":      "#!/bin/sh\n",
		"apps/d":             "a file, later a directory\n",
		"apps/e/x.yaml":      "a directory, later a file\n",
		"same.yaml":          "unchanged\n",
		" lead.yaml":         "space\n",
	})
	repo, err := OpenRepo(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	base := g.Git("rev-parse", "HEAD")
	g.Git("mv", "apps/b/pvc.yaml", "apps/b/claim.yaml")
	if err := os.Chmod(filepath.Join(g.Dir, "apps/c/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.Git("rm", "--quiet", "-r", "apps/d", "apps/e")
	g.Write(map[string]string{
		"apps/a/deploy.yaml": "edited\n",
		"apps/new/x.yaml":    "added\n",
		"apps/d/inner.yaml":  "now a directory\n",
		"apps/e":             "now a file\n",
		" lead.yaml":         "edited\n",
	})
	cand := commitWithSubmodule(g, base, "every kind of change")
	g.Git("rm", "--quiet", "-f", "apps/a/deploy.yaml")
	if err := os.MkdirAll(filepath.Join(g.Dir, "apps/a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../new/x.yaml", filepath.Join(g.Dir, "apps/a/deploy.yaml")); err != nil {
		t.Fatal(err)
	}
	third := commitWithSubmodule(g, cand, "a file replaced by a symlink, the submodule moved")

	for _, pair := range [][2]string{{base, cand}, {cand, base}, {cand, third}, {base, third}, {third, base}} {
		want, err := repo.Changes(t.Context(), pair[0], pair[1])
		if err != nil {
			t.Fatal(err)
		}
		revs, err := OpenRevisions(t.Context(), repo, pair[0], pair[1])
		if err != nil {
			t.Fatal(err)
		}
		got, err := revs.Changes(t.Context(), repo)
		revs.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Paths) < 2 || (pair[1] != third && !slices.Contains(want.Paths, "apps/c/run.sh")) {
			t.Fatalf("%s..%s: git diff found only %v: the history does not change what it should", pair[0][:7], pair[1][:7], want.Paths)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s..%s (-git diff +tree listings):\n%s", pair[0][:7], pair[1][:7], d)
		}
	}

	// The working tree is not a listed tree: git diff answers.
	g.Write(map[string]string{"same.yaml": "edited in the working tree\n"})
	want, err := repo.Changes(t.Context(), third, "")
	if err != nil {
		t.Fatal(err)
	}
	revs, err := OpenRevisions(t.Context(), repo, third, "")
	if err != nil {
		t.Fatal(err)
	}
	defer revs.Close()
	got, err := revs.Changes(t.Context(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" || !slices.Contains(got.Paths, "same.yaml") {
		t.Errorf("working tree (-git diff +got):\n%s", d)
	}
}

// commitWithSubmodule commits the working tree with a submodule at vendor/sub pointing to
// commit (which git add --all alone would drop: the working tree has no checkout there).
func commitWithSubmodule(g *gittest.Repo, commit, msg string) string {
	g.Git("add", "--all")
	g.Git("update-index", "--add", "--cacheinfo", "160000,"+commit+",vendor/sub")
	g.Git("commit", "--quiet", "-m", msg)
	return g.Git("rev-parse", "HEAD")
}
