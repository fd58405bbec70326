// Package gitrev is the one way a revision of a GitOps repository is read: a Repo is a git
// working tree read through the git CLI (never its hooks, filters or the caller's git
// configuration), Files one revision's files read-only (Disk, the working tree as is, or Tree,
// a commit read straight from git's objects and written out only for a reader that needs the
// disk), a Snapshot one revision written out, Revisions the base and candidate of a change,
// and Changes the paths that differ between two revisions. It knows nothing of Flux or
// kustomize.
package gitrev

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
)

// Repo is a git working tree.
type Repo struct {
	// Dir is the top level of the working tree, with symlinks resolved.
	Dir string
}

// OpenRepo opens the git working tree that contains dir. A directory outside any working
// tree (or a bare repository) is bad input.
func OpenRepo(dir string) (*Repo, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, exitcode.UsageErrorf("%s is not a directory", dir)
	}
	top, err := git(context.Background(), dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, exitcode.UsageErrorf("%s is not a git working tree: %w", dir, err)
	}
	// The secure file systems of the build compare paths lexically, so the root must be
	// the real path (a temp dir behind a symlink would look like an escape).
	real, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", top, err)
	}
	return &Repo{Dir: real}, nil
}

// upstreamRefs are the refs DefaultBase tries, in order, for the upstream default branch.
var upstreamRefs = []string{"origin/HEAD", "origin/main", "origin/master"}

// DefaultBase returns the revision a change is judged against: the merge-base of HEAD with
// the upstream default branch (origin/HEAD, else origin/main, else origin/master), or HEAD~1
// when there is no upstream. how says in words which was used, for the command to print.
func (r *Repo) DefaultBase(ctx context.Context) (rev string, how string, err error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	for _, ref := range upstreamRefs {
		if _, err := r.git(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
			continue
		}
		name := ref
		if ref == "origin/HEAD" {
			// Name the branch origin/HEAD points to, which is what a reader recognises.
			if target, err := r.git(ctx, "symbolic-ref", "--short", "refs/remotes/origin/HEAD"); err == nil {
				name = target
			}
		}
		mb, err := r.git(ctx, "merge-base", "HEAD", ref)
		if err != nil {
			return "", "", exitcode.UsageErrorf("HEAD and %s have no common ancestor; give the base revision explicitly: %w", name, err)
		}
		return mb, "merge-base with " + name, nil
	}
	parent, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD~1^{commit}")
	if err != nil {
		return "", "", exitcode.UsageErrorf("no upstream default branch (origin/HEAD, origin/main, origin/master) and HEAD has no parent; give the base revision explicitly")
	}
	return parent, "HEAD~1 (no upstream default branch)", nil
}

// Resolve returns the commit a revision names, or a usage error naming the revision.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", exitcode.UsageErrorf("unknown revision %q", rev)
	}
	commit, err := r.git(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr // cancelled, not an unknown revision
	}
	if err != nil {
		return "", exitcode.UsageErrorf("unknown revision %q in %s", rev, r.Dir)
	}
	return commit, nil
}

// resolveWith is Resolve through cat, which OpenTree and OpenRevisions then read the trees
// with: no process of its own.
func (r *Repo) resolveWith(ctx context.Context, cat *catFile, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", exitcode.UsageErrorf("unknown revision %q", rev)
	}
	commit, ok, err := cat.resolve(rev)
	if cerr := ctx.Err(); cerr != nil {
		return "", cerr // cancelled, not an unknown revision
	}
	if err != nil {
		return "", fmt.Errorf("resolving %q in %s: %w", rev, r.Dir, err)
	}
	if !ok {
		return "", exitcode.UsageErrorf("unknown revision %q in %s", rev, r.Dir)
	}
	return commit, nil
}

func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	return git(ctx, r.Dir, args...)
}

// git runs the git CLI in dir and returns its trimmed standard output; cancelling ctx stops
// it. The error carries git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := gitCommand(ctx, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// safeConfig overrides, on git's command line (which wins over every config file, and is the
// only place safe.bareRepository is read from besides the user's own files), everything
// through which a repository could make git run a program or reach the network: a bare
// repository committed as plain files is not opened unless named explicitly, no fsmonitor
// daemon or hook is started, no transport is allowed, and no pager or editor runs. Filters
// and textconv drivers are named in a repository's own config and .gitattributes: the
// commands used here (rev-parse, merge-base, symbolic-ref, ls-tree, cat-file --batch) never
// apply them, and the environment below keeps the user's and system's config out too.
var safeConfig = []string{
	"-c", "safe.bareRepository=explicit",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "protocol.allow=never",
	"-c", "core.pager=cat",
	"-c", "core.editor=false",
	"-c", "core.askPass=false",
}

// gitCommand is the git CLI run in dir with a clean environment: no system or global config
// (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), none of the caller's GIT_* variables
// (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_PARAMETERS… would redirect or reconfigure it), no
// terminal prompts, no optional lock taken in the working tree, and the overrides of
// safeConfig. Only PATH, HOME, TMPDIR and the locale pass through.
func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	full := append(append([]string{"-C", dir}, safeConfig...), args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitEnv(os.Environ())
	return cmd
}

// gitEnv keeps from environ only what git needs to run and to speak the operator's language.
func gitEnv(environ []string) []string {
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		// A partial clone would fetch a missing object from its promisor remote: network.
		"GIT_NO_LAZY_FETCH=1",
	}
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE", "SYSTEMROOT":
			env = append(env, kv)
		}
	}
	return env
}
