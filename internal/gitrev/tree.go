package gitrev

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubeforensics/suite/internal/progress"
)

// ErrOutside is the error of a path that does not lie under a revision's root.
var ErrOutside = errors.New("path outside the revision")

// ErrEscape is the error of a path that goes through a symbolic link leading out of the
// revision (an absolute target, or one that climbs above the root): it is never followed.
var ErrEscape = errors.New("symbolic link leads out of the revision")

// maxLinkTarget is the longest symbolic link target read, as a snapshot writes them.
const maxLinkTarget = 4096

// maxLinkHops bounds the symbolic links one path may go through, as Linux's ELOOP does.
const maxLinkHops = 40

// Tree is a commit's files read straight from git's objects, never written out: the tree is
// listed once (ls-tree) and checked as a snapshot's is (checkTree, the size limits), and each
// file is read when asked for, through one long-lived `git cat-file --batch` process. It is
// addressed at Root, a directory created empty that stays empty unless OnDisk writes the
// revision out for a reader that needs the disk. A symbolic link is followed only within the
// revision. Cancelling the context it was opened with stops its git process: every later read
// fails. Close releases it.
type Tree struct {
	// Rev is the revision as given; Commit the full commit id it resolved to.
	Rev, Commit string

	root    string
	nodes   map[string]*node // by root-relative path, "" for the root
	entries []treeEntry
	repo    *Repo
	blobs   *blobReader

	diskOnce sync.Once
	diskErr  error
}

// node is one entry of the tree.
type node struct {
	name  string
	path  string // root-relative
	mode  fs.FileMode
	oid   string
	size  int64
	names []string // a directory's entries, sorted

	listOnce sync.Once
	list     []fs.DirEntry // names as entries, made on the first ReadDir
}

// OpenTree resolves rev (an unknown rev is bad input), lists and checks its tree and returns
// its files without reading one: a tree git fsck would flag, a file above maxBlob or a
// revision above maxSnapshot is refused with an error naming it. One git process serves it
// all, until Close.
func (r *Repo) OpenTree(ctx context.Context, rev string) (*Tree, error) {
	cat := newCatFile(ctx, r)
	commit, err := r.resolveWith(ctx, cat, rev)
	if err == nil {
		var t *Tree
		if t, err = r.openTree(ctx, cat, true, rev, commit); err == nil {
			return t, nil
		}
	}
	cat.close()
	return nil, err
}

// openTree is OpenTree of rev, already resolved to commit through cat (OpenRevisions resolves
// both revisions first, to report an unknown one before any work); the Tree stops cat when
// it closes if it owns it.
func (r *Repo) openTree(ctx context.Context, cat *catFile, owns bool, rev, commit string) (*Tree, error) {
	defer progress.Begin(ctx, "listing revision %s (%s)", rev, shortCommit(commit))()
	entries, total, err := r.listTree(ctx, cat, commit)
	if err != nil {
		return nil, fmt.Errorf("reading %s (%s): %w", rev, commit, err)
	}
	dir, err := mkSnapshotDir(total)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	nodes, err := buildNodes(ctx, entries)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	return &Tree{Rev: rev, Commit: commit, root: real, entries: entries, repo: r,
		nodes: nodes, blobs: newBlobReader(ctx, cat, owns, defaultLimits)}, nil
}

// buildNodes indexes checked entries (checkTree: every parent is a listed directory). It stops
// when ctx ends.
func buildNodes(ctx context.Context, entries []treeEntry) (map[string]*node, error) {
	nodes := make(map[string]*node, len(entries)+1)
	nodes[""] = &node{mode: fs.ModeDir | 0o755}
	for i, e := range entries {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		n := &node{name: path.Base(e.path), path: e.path, oid: e.oid, size: e.size}
		switch {
		case e.typ == "tree" || e.typ == "commit": // a submodule is an empty directory
			n.mode, n.size = fs.ModeDir|0o755, 0
		case e.mode == "120000":
			n.mode = fs.ModeSymlink | 0o777
		case e.mode == "100755":
			n.mode = 0o755
		default:
			n.mode = 0o644
		}
		nodes[e.path] = n
		parent := path.Dir(e.path)
		if parent == "." {
			parent = ""
		}
		nodes[parent].names = append(nodes[parent].names, n.name)
	}
	for _, n := range nodes {
		if !slices.IsSorted(n.names) { // ls-tree sorts a directory as "name/"
			slices.Sort(n.names)
		}
	}
	return nodes, nil
}

// Root is the directory the revision is addressed at.
func (t *Tree) Root() string { return t.root }

// Close stops the git process and removes Root (and what OnDisk wrote there).
func (t *Tree) Close() error {
	t.blobs.close()
	return removeSnapshot(t.root)
}

// OnDisk writes the revision out under Root, once, as Snapshot does.
func (t *Tree) OnDisk(ctx context.Context) error {
	t.diskOnce.Do(func() {
		defer progress.Begin(ctx, "extracting revision %s (%s)", t.Rev, shortCommit(t.Commit))()
		if err := t.repo.extract(ctx, t.entries, t.root); err != nil {
			t.diskErr = fmt.Errorf("extracting %s (%s): %w", t.Rev, t.Commit, err)
		}
	})
	return t.diskErr
}

// rel is name's path under the root, or ErrOutside.
func (t *Tree) rel(op, name string) (string, error) {
	p := filepath.Clean(name)
	if !Within(t.root, p) {
		return "", &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	return filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(p, t.root), string(filepath.Separator))), nil
}

// resolve finds name's node, following the symbolic links on the way, and the last one too
// when follow is set; a link out of the revision is ErrEscape.
func (t *Tree) resolve(op, name string, follow bool) (*node, error) {
	rel, err := t.rel(op, name)
	if err != nil {
		return nil, err
	}
	// A listed path has only directories above it (checkTree), so no link to follow on the
	// way: the walk below would end at its node. It is most of what a gate asks.
	if n := t.nodes[rel]; n != nil && (n.mode&fs.ModeSymlink == 0 || !follow) {
		return n, nil
	}
	return t.walk(op, name, rel, follow)
}

// walk is resolve of name (rel under the root) a component at a time.
func (t *Tree) walk(op, name, rel string, follow bool) (*node, error) {
	var todo []string
	if rel != "" {
		todo = strings.Split(rel, "/")
	}
	cur, n, hops := "", t.nodes[""], 0
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		if n.mode&fs.ModeDir == 0 {
			return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
		next := path.Join(cur, comp)
		child := t.nodes[next]
		if child == nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if child.mode&fs.ModeSymlink == 0 || (len(todo) == 0 && !follow) {
			cur, n = next, child
			continue
		}
		if hops++; hops > maxLinkHops {
			return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ELOOP}
		}
		if child.size > maxLinkTarget {
			return nil, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%s: symlink target too long", next)}
		}
		target, err := t.blobs.read(child.oid, child.size, next)
		if err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		dest := path.Join(cur, string(target))
		if path.IsAbs(string(target)) || dest == ".." || strings.HasPrefix(dest, "../") {
			return nil, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("%w: %s -> %s", ErrEscape, next, target)}
		}
		cur, n = "", t.nodes[""]
		if dest != "." {
			todo = append(strings.Split(dest, "/"), todo...)
		}
	}
	return n, nil
}

// Lstat describes name without following a last symbolic link.
func (t *Tree) Lstat(name string) (fs.FileInfo, error) {
	n, err := t.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return info{n}, nil
}

// Stat describes name, following symbolic links within the revision.
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	n, err := t.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return info{n}, nil
}

// ReadFile reads the file name, following symbolic links within the revision.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	n, err := t.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if n.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	b, err := t.blobs.read(n.oid, n.size, name)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// ReadDir lists the directory name sorted by name.
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := t.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if !n.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: syscall.ENOTDIR}
	}
	n.listOnce.Do(func() {
		n.list = make([]fs.DirEntry, 0, len(n.names))
		for _, c := range n.names {
			n.list = append(n.list, fs.FileInfoToDirEntry(info{t.nodes[path.Join(n.path, c)]}))
		}
	})
	return slices.Clone(n.list), nil
}

// EvalSymlinks is name's path with the symbolic links on it resolved within the revision.
func (t *Tree) EvalSymlinks(name string) (string, error) {
	n, err := t.resolve("lstat", name, true)
	if err != nil {
		return "", err
	}
	return filepath.Join(t.root, filepath.FromSlash(n.path)), nil
}

// Readlink is the target of the symbolic link name, as committed.
func (t *Tree) Readlink(name string) (string, error) {
	n, err := t.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	if n.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	if n.size > maxLinkTarget {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errors.New("symlink target too long")}
	}
	b, err := t.blobs.read(n.oid, n.size, name)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return string(b), nil
}

// info describes a node as fs.FileInfo.
type info struct{ n *node }

func (i info) Name() string       { return i.n.name }
func (i info) Size() int64        { return max(i.n.size, 0) }
func (i info) Mode() fs.FileMode  { return i.n.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.n.mode.IsDir() }
func (i info) Sys() any           { return nil }
