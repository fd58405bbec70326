package gitrev

import (
	"context"
	"slices"
)

// Changes lists what differs between the base and the candidate. For two commits it compares
// the listings both trees were opened with, so no git process runs (Repo.Changes runs `git
// diff`); for the working tree it is Repo.Changes. It waits for both revisions.
func (r *Revisions) Changes(ctx context.Context, repo *Repo) (*Changes, error) {
	if _, err := r.base.get(); err != nil {
		return nil, err
	}
	if _, err := r.cand.get(); err != nil {
		return nil, err
	}
	if r.base.tree == nil || r.cand.tree == nil {
		return repo.Changes(ctx, r.Base.Commit, r.Candidate.Commit)
	}
	return treeChanges(r.base.tree.entries, r.cand.tree.entries), nil
}

// treeChanges are the paths of two tree listings (`ls-tree -r -t`) whose file, symlink or
// submodule differs: added, removed, or another object or mode. Directories differ only
// through what they hold, and a file replaced by a directory is the file removed and what
// the directory holds added, as `git diff --raw --no-renames` of the two commits lists them.
// A mode git would read as the same (a legacy 100664 against 100644) counts as a change:
// one path more to look at, never one less.
func treeChanges(base, cand []treeEntry) *Changes {
	type entry struct{ mode, oid string }
	files := func(list []treeEntry) map[string]entry {
		m := make(map[string]entry, len(list))
		for _, e := range list {
			if e.typ != "tree" {
				m[e.path] = entry{e.mode, e.oid}
			}
		}
		return m
	}
	was, now := files(base), files(cand)
	var paths []string
	for p, e := range was {
		if n, ok := now[p]; !ok || n != e {
			paths = append(paths, p)
		}
	}
	for p := range now {
		if _, ok := was[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	return &Changes{Paths: paths}
}
