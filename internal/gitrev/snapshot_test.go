package gitrev

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
)

// A tree crafted with git mktree (git itself never writes one, git fsck flags it) must not
// make extraction write anywhere but the snapshot. The first case is the attack of issue 16: a
// symlink "a" to a directory outside and a directory "a" with a file, which git archive
// streams as the symlink, then the file through it.
func TestSnapshotRefusesCraftedTrees(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	outside := t.TempDir()
	payload := r.Blob("[core]\n\tfsmonitor = touch /tmp/pwned\n")
	sub := r.Tree("100644 blob " + payload + "\t.gitconfig")
	link := r.Blob(outside)
	ok := r.Blob("a: 1\n")
	cases := []struct {
		name, want string
		entries    []string
	}{
		{"symlink and directory of one name", "duplicateEntries", []string{
			"120000 blob " + link + "\ta",
			"040000 tree " + sub + "\ta",
		}},
		{"directory and symlink of one name", "duplicateEntries", []string{
			"040000 tree " + sub + "\ta",
			"120000 blob " + link + "\ta",
		}},
		{"file listed twice", "duplicateEntries", []string{
			"100644 blob " + ok + "\tb.yaml",
			"100644 blob " + payload + "\tb.yaml",
		}},
		{".git directory", `".git"`, []string{"040000 tree " + sub + "\t.git"}},
		{".GIT directory", `".GIT"`, []string{"040000 tree " + sub + "\t.GIT"}},
		{"dot-dot", `".."`, []string{"040000 tree " + sub + "\t.."}},
		{"dot", `"."`, []string{"040000 tree " + sub + "\t."}},
	}
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			commit := r.CommitTree(r.Tree(tc.entries...), tc.name)
			s, err := repo.Snapshot(t.Context(), commit)
			if err == nil {
				s.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Snapshot = %v, want an error naming %s", err, tc.want)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Fatalf("extraction wrote %s outside the snapshot", entries[0].Name())
			}
		})
	}
}

// Symlinks in a sound tree are extracted as symlinks, never followed while writing, and
// executable bits and submodules come out as git archive wrote them.
func TestSnapshotKeepsSymlinks(t *testing.T) {
	r := gittest.New(t, map[string]string{"README.md": "x\n"})
	outside := t.TempDir()
	file := r.Blob("a: 1\n")
	script := r.Blob("#!/bin/sh\n")
	apps := r.Tree("100644 blob "+file+"\tclaim.yaml", "100755 blob "+script+"\trun.sh")
	tree := r.Tree(
		"040000 tree "+apps+"\tapps",
		"120000 blob "+r.Blob("apps")+"\tcurrent",
		"120000 blob "+r.Blob(outside)+"\tescape",
		"160000 commit "+r.Git("rev-parse", "HEAD")+"\tvendor",
	)
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := repo.Snapshot(t.Context(), r.CommitTree(tree, "links"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for p, want := range map[string]string{"current": "apps", "escape": outside} {
		if got, err := os.Readlink(filepath.Join(s.Dir, p)); err != nil || got != want {
			t.Errorf("%s -> %q (%v), want a symlink to %q", p, got, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(s.Dir, "apps", "run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("apps/run.sh: %v %v, want an executable file", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(s.Dir, "vendor")); err != nil || !fi.IsDir() {
		t.Errorf("vendor: %v, want the submodule as an empty directory", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Fatalf("extraction wrote %s outside the snapshot", entries[0].Name())
	}
}

// A repository's own config and attributes name filters; extraction must run none of them
// (git archive ran the smudge filter of .git/config for every file .gitattributes matched).
func TestSnapshotRunsNoFilter(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	r := gittest.New(t, map[string]string{".gitattributes": "* filter=evil diff=evil\n", "apps/a.yaml": "a: 1\n"})
	r.Git("config", "filter.evil.smudge", fmt.Sprintf("touch %s; cat", marker))
	r.Git("config", "filter.evil.clean", "cat")
	r.Git("config", "diff.evil.textconv", fmt.Sprintf("touch %s; cat", marker))
	r.Git("config", "core.fsmonitor", fmt.Sprintf("touch %s; false", marker))
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := repo.Snapshot(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if data, err := os.ReadFile(filepath.Join(s.Dir, "apps", "a.yaml")); err != nil || string(data) != "a: 1\n" {
		t.Fatalf("apps/a.yaml = %q, %v", data, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a filter from the repository's config ran")
	}
}

// The attack of issue 16 item 2: platform/ is a bare repository committed as plain files, its
// config sets a worktree (so it looks like a working tree) and a smudge filter. --repo
// ./platform must not open it, so the filter never runs, and the error says why.
func TestOpenRepoRefusesCommittedBareRepository(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	top := t.TempDir()
	bare := filepath.Join(top, "platform")
	gittest.Run(t, top, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	src := gittest.New(t, map[string]string{".gitattributes": "* filter=evil\n", "clusters/prod/a.yaml": "a: 1\n"})
	src.Git("push", "--quiet", bare, "HEAD:main")
	gittest.Run(t, bare, "config", "core.bare", "false")
	gittest.Run(t, bare, "config", "core.worktree", ".")
	gittest.Run(t, bare, "config", "filter.evil.smudge", fmt.Sprintf("touch %s; cat", marker))
	outer := gittest.In(t, top, nil) // commits platform/ as plain files
	if out := outer.Git("ls-files", "platform/config"); out != "platform/config" {
		t.Fatalf("platform/config not committed: %q", out)
	}
	repo, err := OpenRepo(bare)
	if err == nil {
		if s, err := repo.Snapshot(t.Context(), "HEAD"); err == nil {
			s.Close()
		}
		t.Errorf("OpenRepo(%s) opened %s", bare, repo.Dir)
	} else if !strings.Contains(err.Error(), "bare repository") {
		t.Errorf("OpenRepo(%s) = %v, want it to say it refuses a bare repository", bare, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the committed repository's smudge filter ran")
	}
}

// The caller's GIT_DIR and GIT_CONFIG_* must not redirect or reconfigure git.
func TestGitIgnoresCallerEnvironment(t *testing.T) {
	r := gittest.New(t, map[string]string{"a.yaml": "a: 1\n"})
	other := gittest.New(t, map[string]string{"b.yaml": "b: 1\n"})
	head := r.Git("rev-parse", "HEAD")
	t.Setenv("GIT_DIR", filepath.Join(other.Dir, ".git"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "safe.bareRepository")
	t.Setenv("GIT_CONFIG_VALUE_0", "all")
	repo, err := OpenRepo(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.Dir != r.Dir {
		t.Fatalf("opened %s, want %s", repo.Dir, r.Dir)
	}
	commit, err := repo.Resolve("HEAD")
	if err != nil || commit != head {
		t.Fatalf("HEAD = %s, %v; want %s's", commit, err, r.Dir)
	}
}
