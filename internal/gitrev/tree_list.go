package gitrev

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
)

// maxTreeEntries bounds the entries one revision's listing may hold: the same tree named in
// many directories is listed at each, so a few crafted objects could otherwise list millions.
const maxTreeEntries = 4 << 20

// rawEntry is one entry of a tree object, its mode canonical as git reads it.
type rawEntry struct {
	mode, typ, oid, name string
}

// listTreeCat lists commit's tree as `git ls-tree -r -t -l --full-tree` does (the same
// entries, modes, sizes and order: a directory before what it holds), reading the tree
// objects through c one directory level at a time and asking for the blobs' sizes in one
// batch. The trees and sizes c read for an earlier listing are not asked again (catFile.known).
// A blob the clone does not hold has size missingBlob (ls-tree -l's BAD); in a partial clone
// the listing is lsTreePartial's, as lsTree's is.
func (r *Repo) listTreeCat(ctx context.Context, c *catFile, commit string) ([]treeEntry, error) {
	trees := map[string][]rawEntry{}
	root := ""
	if err := c.batch("contents", []string{commit + "^{tree}"}, func(_ int, a answer, rd io.Reader) error {
		var err error
		root = a.oid
		trees[root], err = readTree(a, rd, commit+"^{tree}")
		return err
	}); err != nil {
		return nil, err
	}
	var read int64
	for level := []string{root}; len(level) > 0; {
		var next []string
		for _, oid := range level {
			for _, e := range trees[oid] {
				if _, seen := trees[e.oid]; e.typ == "tree" && !seen {
					trees[e.oid] = nil
					next = append(next, e.oid)
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		var ask []string
		for _, oid := range next {
			kt, ok := c.known.tree(oid)
			if !ok {
				ask = append(ask, oid)
				continue
			}
			if read += kt.size; read > maxSnapshot {
				return nil, fmt.Errorf("the tree objects hold more than %d bytes", maxSnapshot)
			}
			trees[oid] = kt.entries
		}
		c.known.ask(len(ask))
		if err := c.batch("contents", ask, func(i int, a answer, rd io.Reader) error {
			if read += a.size; read > maxSnapshot {
				return fmt.Errorf("the tree objects hold more than %d bytes", maxSnapshot)
			}
			entries, err := readTree(a, rd, ask[i])
			if err == nil {
				trees[ask[i]] = entries
				c.known.putTree(ask[i], knownTree{entries: entries, size: a.size})
			}
			return err
		}); err != nil {
			return nil, err
		}
		level = next
	}
	var out []treeEntry
	var walk func(dir, oid string) error
	walk = func(dir, oid string) error {
		for _, e := range trees[oid] {
			if len(out) >= maxTreeEntries {
				return fmt.Errorf("the revision lists more than %d entries", maxTreeEntries)
			}
			p := e.name
			if dir != "" {
				p = dir + "/" + e.name
			}
			out = append(out, treeEntry{mode: e.mode, typ: e.typ, oid: e.oid, path: p})
			if e.typ == "tree" {
				if err := walk(p, e.oid); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", root); err != nil {
		return nil, err
	}
	return r.sizeBlobs(ctx, c, commit, out)
}

// sizeBlobs fills in the blobs' sizes, asked for once per distinct blob.
func (r *Repo) sizeBlobs(ctx context.Context, c *catFile, commit string, entries []treeEntry) ([]treeEntry, error) {
	index := map[string]int{}
	var oids []string
	for _, e := range entries {
		if _, ok := index[e.oid]; e.typ == "blob" && !ok {
			index[e.oid] = len(oids)
			oids = append(oids, e.oid)
		}
	}
	sizes := make([]int64, len(oids))
	var ask []int // indexes into oids of the sizes no listing read yet
	for i, oid := range oids {
		if s, ok := c.known.size(oid); ok {
			sizes[i] = s
		} else {
			ask = append(ask, i)
		}
	}
	names := make([]string, len(ask))
	for j, i := range ask {
		names[j] = oids[i]
	}
	c.known.ask(len(names))
	err := c.batch("info", names, func(j int, a answer, _ io.Reader) error {
		i := ask[j]
		switch {
		case a.missing:
			sizes[i] = missingBlob // as ls-tree -l's BAD: only reading it fails
		case a.ambiguous || a.typ != "blob":
			return fmt.Errorf("git cat-file: %s is listed as a blob, git says %s", oids[i], a.typ)
		default:
			sizes[i] = a.size
		}
		c.known.putSize(oids[i], sizes[i])
		return nil
	})
	if err != nil && ctx.Err() == nil && r.partial(ctx) {
		// In a partial clone cat-file dies on a blob it would have to fetch (lazy fetching is
		// off): list it as lsTree does then, and read what it holds with a new process.
		return r.lsTreePartial(ctx, commit)
	}
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if e := &entries[i]; e.typ == "blob" {
			e.size = sizes[index[e.oid]]
		}
	}
	return entries, nil
}

// readTree reads and parses the tree object of an answer: entries of "<octal mode> <name>\0"
// and the raw object id, the mode made canonical and the type derived as git's tree walk
// does (ls-tree prints them so).
func readTree(a answer, rd io.Reader, name string) ([]rawEntry, error) {
	if a.missing || a.ambiguous {
		return nil, fmt.Errorf("git cat-file: tree %s is not in the repository", name)
	}
	if a.typ != "tree" {
		return nil, fmt.Errorf("git cat-file: %s is a %s, not a tree", name, a.typ)
	}
	data, err := readContents(a, rd, maxBlob, "tree "+name)
	if err != nil {
		return nil, err
	}
	idLen := len(a.oid) / 2
	var out []rawEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || len(data) < nul+1+idLen {
			return nil, fmt.Errorf("git cat-file: tree %s is malformed", name)
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("git cat-file: tree %s: mode %q", name, data[:sp])
		}
		e := rawEntry{name: string(data[sp+1 : nul]), oid: hex.EncodeToString(data[nul+1 : nul+1+idLen])}
		e.mode, e.typ = canonMode(uint32(m))
		out = append(out, e)
		data = data[nul+1+idLen:]
	}
	return out, nil
}

// canonMode is git's canon_mode: a regular file is 100644 or, with the owner's execute bit,
// 100755; anything that is neither a file, a symbolic link nor a directory is a submodule.
func canonMode(m uint32) (mode, typ string) {
	switch m & 0o170000 {
	case 0o100000:
		if m&0o100 != 0 {
			return "100755", "blob"
		}
		return "100644", "blob"
	case 0o120000:
		return "120000", "blob"
	case 0o040000:
		return "040000", "tree"
	}
	return "160000", "commit"
}
