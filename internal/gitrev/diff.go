package gitrev

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Changes are the paths that differ between two revisions of a repository, relative to its
// top level or, after Under, to a source root inside it. A rename is a deletion and an
// addition. Uncertain, when set, says why the set cannot be trusted: LoadIncremental then
// builds every tier.
type Changes struct {
	// Paths are the changed files (and, for the working tree, untracked directories), sorted.
	Paths []string
	// Uncertain is why the set may miss a difference between the two snapshots ("" when
	// it cannot).
	Uncertain string
}

// commitID is a full object id as Resolve returns it.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Changes lists what differs between commit base and commit cand, or the working tree when
// cand is "" (tracked changes, staged or not, and every untracked or ignored file, since a
// snapshot of the working tree holds those too). Both commits are ids from Resolve. It reads
// git's raw diff format, not --name-only, so that no path is ever the first bytes of the
// output, which the git runner trims.
func (r *Repo) Changes(ctx context.Context, base, cand string) (*Changes, error) {
	for _, c := range []string{base, cand} {
		if c != "" && !commitID.MatchString(c) {
			return nil, fmt.Errorf("changes: %q is not a commit id", c)
		}
	}
	args := []string{"diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--ignore-submodules=none", base}
	if cand != "" {
		args = append(args, cand)
	}
	out, err := r.git(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("listing changes since %s: %w", base, err)
	}
	paths, err := parseRawDiff(out)
	if err != nil {
		return nil, err
	}
	if cand == "" {
		others, err := r.git(ctx, "ls-files", "-z", "-t", "--others", "--directory")
		if err != nil {
			return nil, fmt.Errorf("listing untracked files: %w", err)
		}
		for _, f := range strings.Split(others, "\x00") {
			if tag, p, ok := strings.Cut(f, " "); ok && tag == "?" {
				paths = append(paths, strings.TrimSuffix(p, "/"))
			}
		}
	}
	c := &Changes{Paths: sortedUnique(paths)}
	if cand == "" {
		// Two commits are both read from git's objects as they are (Snapshot), so the diff
		// of their trees is the difference of their snapshots; the working tree is what
		// filters, attributes and submodules made of it.
		c.Uncertain, err = r.snapshotGaps(ctx, base)
	}
	return c, err
}

// parseRawDiff reads `git diff --raw -z`: a ":modes ids status" field, then the path.
func parseRawDiff(out string) ([]string, error) {
	fields := strings.Split(out, "\x00")
	var paths []string
	for i := 0; i+1 < len(fields); i += 2 {
		if !strings.HasPrefix(fields[i], ":") {
			return nil, fmt.Errorf("unexpected git diff output near %q", fields[i])
		}
		paths = append(paths, fields[i+1])
	}
	return paths, nil
}

// snapshotGaps says why the working tree may differ from the snapshot of commit base where
// their diff does not: git diff compares the working tree through the filters and attributes
// (.gitattributes in the tree, or the repository's info/attributes) that a snapshot read
// from git's objects never applies, and a snapshot holds a submodule as an empty directory
// where the working tree has its files. "" when none of that can happen.
func (r *Repo) snapshotGaps(ctx context.Context, base string) (string, error) {
	if p, err := r.git(ctx, "rev-parse", "--git-path", "info/attributes"); err == nil {
		if !path.IsAbs(p) {
			p = r.Dir + "/" + p
		}
		if fi, err := os.Stat(p); err == nil && fi.Size() > 0 {
			return "the repository has " + p + ", which may make the working tree differ from its commit", nil
		}
	}
	out, err := r.git(ctx, "ls-tree", "-r", "-z", "--full-tree", base)
	if err != nil {
		return "", fmt.Errorf("listing %s: %w", base, err)
	}
	for _, entry := range strings.Split(out, "\x00") {
		meta, f, _ := strings.Cut(entry, "\t")
		switch {
		case path.Base(f) == ".gitattributes":
			return fmt.Sprintf("%s has %s, which may make the working tree differ from its commit", base[:12], f), nil
		case strings.Contains(meta, " commit "):
			return fmt.Sprintf("%s has a submodule at %s, which a snapshot leaves empty", base[:12], f), nil
		}
	}
	return "", nil
}

// Under returns the changes below dir (a source root relative to the repository's top
// level), relative to it; "." returns c itself.
func (c *Changes) Under(dir string) *Changes {
	dir = CleanPath(dir)
	if dir == "." {
		return c
	}
	out := &Changes{Uncertain: c.Uncertain}
	for _, p := range c.Paths {
		switch {
		case strings.HasPrefix(p, dir+"/"):
			out.Paths = append(out.Paths, strings.TrimPrefix(p, dir+"/"))
		case p == dir || strings.HasPrefix(dir, p+"/"):
			// The whole source root changed (an untracked directory above it, or a file
			// replaced by it).
			out.Paths = append(out.Paths, ".")
		}
	}
	out.Paths = sortedUnique(out.Paths)
	return out
}

// Touches reports whether a change lies at p, below it, or above it (a changed path that
// stands for a whole directory); "." is the root, below which everything lies.
func (c *Changes) Touches(p string) bool {
	if len(c.Paths) == 0 {
		return false
	}
	if p == "." || c.Paths[0] == "." {
		return true
	}
	if i := sort.SearchStrings(c.Paths, p); i < len(c.Paths) && c.Paths[i] == p {
		return true
	}
	// Paths below p sort together from p+"/" on ("p-x" sorts between p and them).
	below := p + "/"
	if i := sort.SearchStrings(c.Paths, below); i < len(c.Paths) && strings.HasPrefix(c.Paths[i], below) {
		return true
	}
	// A path above p sorts before it; walk p's ancestors.
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if j := sort.SearchStrings(c.Paths, d); j < len(c.Paths) && c.Paths[j] == d {
			return true
		}
	}
	return false
}

func sortedUnique(in []string) []string {
	set := map[string]bool{}
	for _, p := range in {
		if p != "" {
			set[p] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// CleanPath makes p relative to the top level, never above it: "./clusters/prod/",
// "/clusters/prod" and "clusters/x/../prod" are all "clusters/prod"; "" is ".". kbuild.CleanPath
// cleans a Kustomization's spec.path with it, as kustomize-controller's secure join does.
func CleanPath(dir string) string {
	if c := strings.TrimPrefix(path.Clean("/"+dir), "/"); c != "" {
		return c
	}
	return "."
}
