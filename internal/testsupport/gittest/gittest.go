// Package gittest makes real git repositories for tests: a directory driven with the git CLI
// on branch main, under a fixed identity and without the user's or the system's git config, so
// a test commits the same way on every machine. Files are written with incident.WriteFiles (an
// empty content deletes a file).
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// Repo is one repository; Dir is its top level with symlinks resolved, as git reports it.
type Repo struct {
	tb  testing.TB
	Dir string
}

// New creates a repository in a fresh temporary directory and, when files is not nil, commits
// them as "initial".
func New(tb testing.TB, files map[string]string) *Repo {
	tb.Helper()
	return In(tb, tb.TempDir(), files)
}

// In creates a repository in dir, which may already hold files, and commits files and
// whatever dir holds as "initial" unless both are empty.
func In(tb testing.TB, dir string, files map[string]string) *Repo {
	tb.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	entries, _ := os.ReadDir(real)
	r := &Repo{tb: tb, Dir: real}
	r.Git("init", "--quiet", "--initial-branch=main")
	if files != nil || len(entries) > 0 {
		r.Commit("initial", files)
	}
	return r
}

// Git runs git in the repository and returns its trimmed output; a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.tb.Helper()
	return Run(r.tb, r.Dir, args...)
}

// Write changes files in the working tree: a file's new content, or "" to delete it.
func (r *Repo) Write(files map[string]string) {
	r.tb.Helper()
	if err := incident.WriteFiles(r.Dir, files); err != nil {
		r.tb.Fatal(err)
	}
}

// Commit writes files, stages everything and commits it (even when nothing changed), and
// returns the commit id.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.tb.Helper()
	r.Write(files)
	r.Git("add", "--all")
	r.Git("commit", "--quiet", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// Run runs git in dir, as Repo.Git does, for a directory that is not a Repo (a clone).
func Run(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return RunInput(tb, dir, "", args...)
}

// RunInput is Run with input on git's standard input (`git mktree`, `git hash-object --stdin`).
func RunInput(tb testing.TB, dir, input string, args ...string) string {
	tb.Helper()
	base := []string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}
	cmd := exec.Command("git", append(base, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Blob stores content as a blob and returns its id.
func (r *Repo) Blob(content string) string {
	r.tb.Helper()
	return RunInput(r.tb, r.Dir, content, "hash-object", "-w", "--stdin")
}

// Tree stores a tree of the given entries, lines of `git mktree` ("100644 blob ID\tname"),
// exactly as given: git mktree does not check them as git fsck would, which is the point of
// crafting one.
func (r *Repo) Tree(entries ...string) string {
	r.tb.Helper()
	return RunInput(r.tb, r.Dir, strings.Join(entries, "\n")+"\n", "mktree")
}

// CommitTree stores a commit of tree on top of HEAD and returns its id, without touching
// the working tree or any branch.
func (r *Repo) CommitTree(tree, msg string) string {
	r.tb.Helper()
	return r.Git("commit-tree", "-m", msg, tree)
}

// Open drives an existing repository at dir (a clone the test made).
func Open(tb testing.TB, dir string) *Repo {
	tb.Helper()
	return &Repo{tb: tb, Dir: dir}
}
