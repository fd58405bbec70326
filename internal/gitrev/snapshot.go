package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kubeforensics/suite/internal/progress"
)

// Limits on what a revision may hold. A blob git keeps compressed (a gigabyte of zeros packs
// into a megabyte) would otherwise be written out in full, into memory-backed /dev/shm.
const (
	// maxBlob is the largest file a snapshot extracts: GitHub refuses files above 100 MiB, so
	// no repository hosted there holds a larger one.
	maxBlob = 100 << 20
	// maxSnapshot bounds the bytes one snapshot writes in all.
	maxSnapshot = 2 << 30
	// maxInMemory is the largest revision extracted into memory-backed /dev/shm; a larger
	// one goes to the temporary directory on disk, so no revision near maxSnapshot takes
	// that much memory (twice, with base and candidate).
	maxInMemory = 256 << 20
)

// checkEvery is how many entries a loop over a tree handles between two looks at its
// context: a few milliseconds of work, so a stop is seen at once even in a million entries.
const checkEvery = 1024

// Snapshot is one revision of a Repo on disk.
type Snapshot struct {
	// Rev is the revision as given; "" for the working tree.
	Rev string
	// Commit is the full commit id Rev resolved to; "" for the working tree.
	Commit string
	// Dir is the root of the files: a temporary directory, or the working tree itself.
	Dir  string
	temp bool
}

// Snapshot returns the files of rev. An empty rev is the working tree as it is,
// including uncommitted and untracked files, without a copy. Any other rev is resolved to a
// commit whose files are read straight from git's objects (ls-tree and one cat-file process;
// no filter, attribute or hook applies) and written into a fresh temporary directory that
// Close removes. Nothing is written through a symlink or outside that directory: a tree git
// fsck would flag (duplicate entries, a name that is empty, ".", ".." or ".git") is refused
// with an error naming the path. An unknown rev is bad input. Cancelling ctx stops the
// extraction and removes what was written.
func (r *Repo) Snapshot(ctx context.Context, rev string) (*Snapshot, error) {
	if rev == "" {
		return &Snapshot{Dir: r.Dir}, nil
	}
	commit, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	defer progress.Begin(ctx, "extracting revision %s (%s)", rev, shortCommit(commit))()
	entries, total, err := r.listTree(ctx, nil, commit)
	if err != nil {
		return nil, fmt.Errorf("extracting %s (%s): %w", rev, commit, err)
	}
	dir, err := mkSnapshotDir(total)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Rev: rev, Commit: commit, Dir: dir, temp: true}
	if s.Dir, err = filepath.EvalSymlinks(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := r.extract(ctx, entries, s.Dir); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("extracting %s (%s): %w", rev, commit, err)
	}
	return s, nil
}

// listTree lists commit's tree, checked (checkTree), with the bytes its files hold in all:
// a file above maxBlob or a revision above maxSnapshot is refused before anything is
// written, the error naming the file or the revision's total. It reads through cat when
// given (listTreeCat), else runs ls-tree (lsTree); both list the same.
func (r *Repo) listTree(ctx context.Context, cat *catFile, commit string) ([]treeEntry, int64, error) {
	var entries []treeEntry
	var err error
	if cat != nil {
		entries, err = r.listTreeCat(ctx, cat, commit)
	} else {
		entries, err = r.lsTree(ctx, commit)
	}
	if err != nil {
		return nil, 0, err
	}
	if err := checkTree(ctx, entries); err != nil {
		return nil, 0, err
	}
	var total int64
	files := 0
	for _, e := range entries {
		if e.typ != "blob" {
			continue
		}
		if e.size == missingBlob {
			continue
		}
		if e.size > maxBlob {
			return nil, 0, fmt.Errorf("%q is %d bytes, above the limit of %d bytes for a file", e.path, e.size, maxBlob)
		}
		total += e.size
		files++
	}
	if total > maxSnapshot {
		return nil, 0, fmt.Errorf("the revision holds %d bytes (%.1f GiB) in %d files, above the limit of %d bytes (2 GiB) for a revision; nothing was written", total, float64(total)/(1<<30), files, maxSnapshot)
	}
	return entries, total, nil
}

// Close removes the snapshot's temporary directory; it leaves a working tree alone. It takes
// at most about half a second: what a large revision leaves then is removed by a process of
// its own that outlives this one (removeSnapshot), so a stopped run ends within a second.
func (s *Snapshot) Close() error {
	if !s.temp {
		return nil
	}
	return removeSnapshot(s.Dir)
}

// treeEntry is one line of `git ls-tree -r -t -l`: a tree, blob, symlink or submodule, and
// a blob's size; missingBlob for a blob the clone does not hold.
type treeEntry struct {
	mode, typ, oid, path string
	size                 int64
}

// missingBlob is the size of a blob the clone does not hold (a partial clone, a copy missing
// objects): listing the tree works, reading that file fails with ErrMissingBlob.
const missingBlob = -1

// ErrMissingBlob is reading a file whose blob the clone does not hold (a partial clone,
// `--filter=blob:none`, or a mirror missing objects). Nothing fetches it: git runs with lazy
// fetching off, since that would touch the network.
var ErrMissingBlob = errors.New("its blob is not in this clone (a partial clone, or a copy missing objects); nothing is fetched, so what reads it is unknown: fetch the blobs (git fetch --refetch, or clone without --filter)")

// extract writes the checked entries of a tree (listTree) into dir.
func (r *Repo) extract(ctx context.Context, entries []treeEntry, dir string) error {
	w, err := newTreeWriter(dir)
	if err != nil {
		return err
	}
	defer w.Close()
	var blobs []treeEntry
	for i, e := range entries {
		if i%checkEvery == 0 && ctx.Err() != nil { // a million directories take seconds
			return context.Cause(ctx)
		}
		switch {
		case e.typ == "tree" || e.typ == "commit":
			// A submodule is an empty directory, as git archive writes it.
			err = w.mkdir(e.path)
		case e.typ == "blob" && e.size == missingBlob:
			err = fmt.Errorf("%q: %w", e.path, ErrMissingBlob)
		case e.typ == "blob":
			blobs = append(blobs, e)
		default:
			err = fmt.Errorf("%q: unexpected object type %q", e.path, e.typ)
		}
		if err != nil {
			return err
		}
	}
	return r.writeBlobs(ctx, w, blobs)
}

// lsTree lists every entry of commit's tree, directories before what they hold. In a partial
// clone whose blobs are not all there, `ls-tree -l` fails (it needs every size); the tree is
// then listed without sizes (lsTreePartial), and the blobs that are missing are marked so.
func (r *Repo) lsTree(ctx context.Context, commit string) ([]treeEntry, error) {
	cmd := gitCommand(ctx, r.Dir, "ls-tree", "-r", "-t", "-l", "-z", "--full-tree", commit)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if r.partial(ctx) {
			return r.lsTreePartial(ctx, commit)
		}
		return nil, fmt.Errorf("git ls-tree: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var out []treeEntry
	for i, rec := range strings.Split(stdout.String(), "\x00") {
		if i%checkEvery == 0 && ctx.Err() != nil { // a million entries take a second
			return nil, context.Cause(ctx)
		}
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		e := treeEntry{mode: f[0], typ: f[1], oid: f[2], path: p}
		if e.typ == "blob" && f[3] == "BAD" {
			// ls-tree -l prints BAD for a blob the object store does not hold (a mirror or
			// copy missing objects, without being a partial clone): only reading it fails.
			e.size = missingBlob
		} else if e.typ == "blob" {
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil || size < 0 {
				return nil, fmt.Errorf("git ls-tree: unexpected size in %q", rec)
			}
			e.size = size
		}
		out = append(out, e)
	}
	return out, nil
}

// checkTree refuses what git fsck reports as a broken tree and what could make extraction
// write through a symlink or outside the snapshot: a path listed twice (a symlink and a
// directory of the same name), an entry whose parent is not a directory, and empty, ".",
// ".." or ".git" names (any case). It stops when ctx ends.
func checkTree(ctx context.Context, entries []treeEntry) error {
	kind := make(map[string]string, len(entries))
	for i, e := range entries {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		for _, c := range strings.Split(e.path, "/") {
			if c == "" || c == "." || c == ".." || strings.EqualFold(c, ".git") {
				return fmt.Errorf("refusing the tree: %q has a name git fsck rejects (%q)", e.path, c)
			}
		}
		if prev, dup := kind[e.path]; dup {
			return fmt.Errorf("refusing the tree: %q is listed twice (a %s and a %s; git fsck: duplicateEntries)", e.path, prev, e.typ)
		}
		if parent := path.Dir(e.path); parent != "." && kind[parent] != "tree" {
			return fmt.Errorf("refusing the tree: %q lies under %q, which is not a directory", e.path, parent)
		}
		kind[e.path] = e.typ
	}
	return nil
}

// writeBlobs reads the blobs from one `git cat-file --batch` process, in order, and writes
// each as a new file (or symlink) under root; nothing existing is overwritten or followed out.
func (r *Repo) writeBlobs(ctx context.Context, w *treeWriter, blobs []treeEntry) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, r.Dir, "cat-file", "--batch")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return err
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, b := range blobs {
			if _, err := fmt.Fprintln(w, b.oid); err != nil {
				break
			}
		}
		_ = w.Flush()
		_ = stdin.Close()
	}()
	werr := writeBatch(ctx, w, bufio.NewReaderSize(stdout, 64<<10), blobs)
	if werr != nil {
		cancel() // stop git rather than drain what is left
	}
	if err := cmd.Wait(); err != nil && werr == nil {
		return fmt.Errorf("git cat-file: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return werr
}

// writeBatch writes the blobs cat-file streams, checking each header and the size limits.
func writeBatch(ctx context.Context, w *treeWriter, br *bufio.Reader, blobs []treeEntry) error {
	for _, b := range blobs {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		size, err := batchHeader(br, b)
		if err != nil {
			return err
		}
		if size != b.size { // listTree counted the sizes ls-tree gave: cat-file must agree
			return fmt.Errorf("git cat-file: %q is %d bytes, ls-tree said %d", b.path, size, b.size)
		}
		if err := writeEntry(w, b, ctxReader{ctx, io.LimitReader(br, size)}, size); err != nil {
			return fmt.Errorf("writing %q: %w", b.path, err)
		}
		if nl, err := br.ReadByte(); err != nil || nl != '\n' {
			return fmt.Errorf("git cat-file: output out of step after %q", b.path)
		}
	}
	return nil
}

// batchHeader reads "<oid> blob <size>" for b.
func batchHeader(br *bufio.Reader, b treeEntry) (int64, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("git cat-file: reading %q: %w", b.path, err)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != b.oid || f[1] != "blob" {
		return 0, fmt.Errorf("git cat-file: %q (%s): unexpected answer %q", b.path, b.oid, strings.TrimSpace(line))
	}
	return strconv.ParseInt(f[2], 10, 64)
}

// writeEntry creates b with w: a symlink for mode 120000 (its target is the blob, at most
// 4 KiB), else a regular file, executable for mode 100755.
func writeEntry(w *treeWriter, b treeEntry, r io.Reader, size int64) error {
	if b.mode == "120000" {
		if size > 4096 {
			return errors.New("symlink target too long")
		}
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return w.symlink(string(target), b.path)
	}
	perm := os.FileMode(0o644)
	if b.mode == "100755" {
		perm = 0o755
	}
	return w.create(b.path, perm, r, size)
}

// ctxReader stops reading once ctx ends, so one large file does not hold up a stop.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// mkSnapshotDir makes the directory a revision of size bytes is extracted into: under
// memory-backed /dev/shm where it exists and is writable and the revision holds at most
// maxInMemory (a snapshot is small, short-lived and written file by file, which costs several
// times more on a disk), else in the temporary directory. An explicit $TMPDIR wins.
func mkSnapshotDir(size int64) (string, error) {
	if os.Getenv("TMPDIR") == "" && size <= maxInMemory {
		if dir, err := os.MkdirTemp("/dev/shm", "gitops-snapshot-"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "gitops-snapshot-")
}
