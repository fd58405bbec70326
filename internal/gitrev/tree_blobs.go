package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// limits bound what reading one revision may cost.
type limits struct {
	// blob is the largest file read; total the bytes read from git in all (a file read again
	// once it left the cache counts again).
	blob, total int64
	// cacheEntry is the largest file kept once read, cache the bytes kept in all.
	cacheEntry, cache int64
}

// defaultLimits are those of a snapshot: no file above maxBlob, no more than maxSnapshot
// read in all; files up to 1 MiB are kept, 64 MiB in all, since a build reads the same
// bases and components many times.
var defaultLimits = limits{blob: maxBlob, total: maxSnapshot, cacheEntry: 1 << 20, cache: 64 << 20}

// blobReader reads blobs from one `git cat-file --batch` process, started at the first read
// and stopped when the context it was made with ends, or by close. Reads are serialised; a
// failed read stops the process and fails every later one.
type blobReader struct {
	ctx    context.Context
	cancel context.CancelFunc
	repo   *Repo
	lim    limits

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	err    error // sticky
	spent  int64
	cache  map[string][]byte
	cached int64
}

func newBlobReader(ctx context.Context, repo *Repo, lim limits) *blobReader {
	ctx, cancel := context.WithCancel(ctx)
	return &blobReader{ctx: ctx, cancel: cancel, repo: repo, lim: lim, cache: map[string][]byte{}}
}

var errClosed = errors.New("the revision was closed")

// close stops the process and waits for it.
func (b *blobReader) close() {
	b.cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stop(errClosed)
}

// stop ends the process, if any, and makes err every later read's error.
func (b *blobReader) stop(err error) {
	if b.err == nil {
		b.err = err
	}
	if b.cmd != nil {
		_ = b.in.Close()
		if b.cmd.Process != nil {
			_ = b.cmd.Process.Kill()
		}
		_ = b.cmd.Wait()
		b.cmd = nil
	}
}

// read returns a copy of blob oid, which ls-tree said holds size bytes; name is its path,
// for errors.
func (b *blobReader) read(oid string, size int64, name string) ([]byte, error) {
	if size == missingBlob {
		return nil, ErrMissingBlob // never asked of cat-file --batch, which would die on it
	}
	if size > b.lim.blob {
		return nil, fmt.Errorf("%q is %d bytes, above the limit of %d bytes for a file", name, size, b.lim.blob)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if data, ok := b.cache[oid]; ok {
		return bytes.Clone(data), nil
	}
	if b.err != nil {
		return nil, b.err
	}
	if err := b.ctx.Err(); err != nil {
		b.stop(context.Cause(b.ctx))
		return nil, b.err
	}
	if b.spent+size > b.lim.total {
		return nil, fmt.Errorf("reading %q would take the bytes read from the revision above the limit of %d", name, b.lim.total)
	}
	data, err := b.fetch(oid, size, name)
	if err != nil {
		if b.ctx.Err() != nil {
			err = context.Cause(b.ctx)
		}
		b.stop(err)
		return nil, err
	}
	b.spent += size
	if size <= b.lim.cacheEntry && b.cached+size <= b.lim.cache {
		b.cache[oid], b.cached = data, b.cached+size
		return bytes.Clone(data), nil
	}
	return data, nil
}

// fetch asks the process for oid and reads its answer.
func (b *blobReader) fetch(oid string, size int64, name string) ([]byte, error) {
	if err := b.start(); err != nil {
		return nil, err
	}
	if _, err := io.WriteString(b.in, oid+"\n"); err != nil {
		return nil, fmt.Errorf("git cat-file: %v: %s", err, strings.TrimSpace(b.stderr.String()))
	}
	got, err := batchHeader(b.out, treeEntry{oid: oid, path: name})
	if err != nil {
		return nil, err
	}
	if got != size { // the limits were checked against ls-tree's sizes: cat-file must agree
		return nil, fmt.Errorf("git cat-file: %q is %d bytes, ls-tree said %d", name, got, size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(ctxReader{b.ctx, b.out}, data); err != nil {
		return nil, fmt.Errorf("git cat-file: reading %q: %w", name, err)
	}
	if nl, err := b.out.ReadByte(); err != nil || nl != '\n' {
		return nil, fmt.Errorf("git cat-file: output out of step after %q", name)
	}
	return data, nil
}

// start starts the process if it does not run.
func (b *blobReader) start() error {
	if b.cmd != nil {
		return nil
	}
	cmd := gitCommand(b.ctx, b.repo.Dir, "cat-file", "--batch")
	cmd.Stderr = &b.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	b.cmd, b.in, b.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	return nil
}
