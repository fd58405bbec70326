package gitrev

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

func TestOpenRepo(t *testing.T) {
	r := gittest.New(t, map[string]string{"clusters/prod/a.yaml": "a: 1\n"})
	top, err := filepath.EvalSymlinks(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("subdirectory opens the top level", func(t *testing.T) {
		repo, err := OpenRepo(filepath.Join(r.Dir, "clusters", "prod"))
		if err != nil {
			t.Fatal(err)
		}
		if repo.Dir != top {
			t.Fatalf("Dir = %s, want %s", repo.Dir, top)
		}
	})
	for _, tc := range []struct{ name, dir string }{
		{"not a repo", t.TempDir()},
		{"missing dir", filepath.Join(t.TempDir(), "nope")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := OpenRepo(tc.dir); exitcode.Of(err) != exitcode.Usage {
				t.Fatalf("OpenRepo(%s) = %v (code %v), want a usage error", tc.dir, err, exitcode.Of(err))
			}
		})
	}
}

func TestSnapshot(t *testing.T) {
	r := gittest.New(t, map[string]string{
		"apps/pvc.yaml":    "kind: PersistentVolumeClaim\n",
		"apps/deploy.yaml": "kind: Deployment\n",
	})
	first := r.Git("rev-parse", "HEAD")
	r.Write(map[string]string{"apps/pvc.yaml": ""})
	second := r.Commit("remove the claim", nil)
	r.Write(map[string]string{"apps/new.yaml": "kind: ConfigMap\n"}) // uncommitted
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, rev, commit string
		present, absent   []string
	}{
		{"first revision", first, first, []string{"apps/pvc.yaml", "apps/deploy.yaml"}, []string{"apps/new.yaml"}},
		{"second revision by name", "HEAD", second, []string{"apps/deploy.yaml"}, []string{"apps/pvc.yaml", "apps/new.yaml"}},
		{"parent by expression", "HEAD~1", first, []string{"apps/pvc.yaml"}, nil},
		{"working tree", "", "", []string{"apps/deploy.yaml", "apps/new.yaml"}, []string{"apps/pvc.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := repo.Snapshot(t.Context(), tc.rev)
			if err != nil {
				t.Fatal(err)
			}
			if s.Commit != tc.commit || s.Rev != tc.rev {
				t.Errorf("Rev, Commit = %q, %q; want %q, %q", s.Rev, s.Commit, tc.rev, tc.commit)
			}
			for _, f := range tc.present {
				if _, err := os.Stat(filepath.Join(s.Dir, f)); err != nil {
					t.Errorf("%s missing: %v", f, err)
				}
			}
			for _, f := range tc.absent {
				if _, err := os.Stat(filepath.Join(s.Dir, f)); err == nil {
					t.Errorf("%s present, want absent", f)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat(s.Dir)
			if removed := os.IsNotExist(err); removed != (tc.rev != "") {
				t.Errorf("after Close, dir removed = %v; only a temp snapshot may be removed", removed)
			}
		})
	}
}

func TestSnapshotUnknownRevision(t *testing.T) {
	repo, err := OpenRepo(gittest.New(t, map[string]string{"a.yaml": "a: 1\n"}).Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range []string{"no-such-branch", "HEAD~5", "--output=/tmp/x", "0123456789abcdef0123456789abcdef01234567"} {
		t.Run(rev, func(t *testing.T) {
			_, err := repo.Snapshot(t.Context(), rev)
			if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), rev) {
				t.Fatalf("Snapshot(%q) = %v, want a usage error naming the revision", rev, err)
			}
		})
	}
}

func TestDefaultBase(t *testing.T) {
	t.Run("no origin falls back to HEAD~1", func(t *testing.T) {
		r := gittest.New(t, map[string]string{"a.yaml": "a: 1\n"})
		parent := r.Git("rev-parse", "HEAD")
		r.Write(map[string]string{"a.yaml": "a: 2\n"})
		r.Commit("change", nil)
		assertBase(t, r.Dir, parent, "HEAD~1 (no upstream default branch)")
	})
	t.Run("single commit without origin is bad input", func(t *testing.T) {
		repo, err := OpenRepo(gittest.New(t, map[string]string{"a.yaml": "a: 1\n"}).Dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := repo.DefaultBase(); exitcode.Of(err) != exitcode.Usage {
			t.Fatalf("DefaultBase() = %v, want a usage error", err)
		}
	})
	t.Run("merge-base with origin/HEAD", func(t *testing.T) {
		r, forkPoint := withOrigin(t)
		r.Git("remote", "set-head", "origin", "main")
		assertBase(t, r.Dir, forkPoint, "merge-base with origin/main")
	})
	t.Run("merge-base with origin/main without origin/HEAD", func(t *testing.T) {
		r, forkPoint := withOrigin(t)
		assertBase(t, r.Dir, forkPoint, "merge-base with origin/main")
	})
}

// withOrigin returns a repository whose origin is a bare clone, checked out on a feature
// branch two commits ahead of the fork point, while origin/main moved on by one commit.
func withOrigin(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t, map[string]string{"a.yaml": "a: 1\n"})
	forkPoint := r.Git("rev-parse", "HEAD")
	bare := filepath.Join(t.TempDir(), "origin.git")
	gittest.Run(t, r.Dir, "clone", "--quiet", "--bare", r.Dir, bare)
	r.Git("remote", "add", "origin", bare)
	// origin/main moves on: a commit pushed by someone else.
	other := filepath.Join(t.TempDir(), "other")
	gittest.Run(t, r.Dir, "clone", "--quiet", bare, other)
	o := gittest.Open(t, other)
	o.Write(map[string]string{"b.yaml": "b: 1\n"})
	o.Commit("upstream change", nil)
	o.Git("push", "--quiet", "origin", "main")
	r.Git("fetch", "--quiet", "origin")
	r.Git("checkout", "--quiet", "-b", "feature")
	for _, v := range []string{"2", "3"} {
		r.Write(map[string]string{"a.yaml": "a: " + v + "\n"})
		r.Commit("feature "+v, nil)
	}
	return r, forkPoint
}

func assertBase(t *testing.T, dir, wantRev, wantHow string) {
	t.Helper()
	repo, err := OpenRepo(dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, how, err := repo.DefaultBase()
	if err != nil {
		t.Fatal(err)
	}
	if rev != wantRev || how != wantHow {
		t.Fatalf("DefaultBase() = %s, %q; want %s, %q", rev, how, wantRev, wantHow)
	}
}
