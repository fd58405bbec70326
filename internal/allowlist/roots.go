package allowlist

import (
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitrev"
)

// Roots are the directories whose git repositories flux_chain_lint and safe_retire_plan may
// read: a client of the server names a path, and the server reads nothing outside them.
type Roots []string

// NewRoots resolves each root to its real absolute path.
func NewRoots(dirs []string) (Roots, error) {
	var roots Roots
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, exitcode.UsageErrorf("--repo-root %s: %w", d, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, exitcode.UsageErrorf("--repo-root %s: %w", d, err)
		}
		roots = append(roots, real)
	}
	return roots, nil
}

// Check returns the real path of the repository directory dir (relative paths are taken
// from the first root) after making sure that it, and the top level of its git working tree,
// lie inside a root.
func (r Roots) Check(dir string) (string, error) {
	if len(r) == 0 {
		return "", exitcode.UsageErrorf("this server reads no repository: start it with --repo-root")
	}
	if dir == "" {
		return "", exitcode.UsageErrorf("repo is required: the path of a directory in a git working tree under %s", strings.Join(r, ", "))
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(r[0], dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", exitcode.UsageErrorf("repo %s: %w", dir, err)
	}
	if !r.contains(real) {
		return "", r.outside(dir)
	}
	repo, err := gitrev.OpenRepo(real)
	if err != nil {
		return "", err
	}
	if !r.contains(repo.Dir) {
		return "", r.outside(repo.Dir + " (the top level of " + dir + ")")
	}
	return real, nil
}

func (r Roots) contains(p string) bool {
	for _, root := range r {
		if p == root || strings.HasPrefix(p, root+string(filepath.Separator)) || root == string(filepath.Separator) {
			return true
		}
	}
	return false
}

func (r Roots) outside(dir string) error {
	return exitcode.UsageErrorf("repo %s is outside the directories this server may read (--repo-root %s)", dir, strings.Join(r, ", "))
}

// String lists the roots for descriptions.
func (r Roots) String() string {
	if len(r) == 0 {
		return "none (start the server with --repo-root)"
	}
	return strings.Join(r, ", ")
}
