package gitrev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// blobReader reads one revision's blobs through a catFile (shared with the other revision
// of a comparison), within its own limits and cache. Reads are serialised by the catFile; a
// failed read fails every later one.
type blobReader struct {
	ctx  context.Context
	cat  *catFile
	lim  limits
	owns bool // close stops cat too

	mu     sync.Mutex
	err    error // sticky
	spent  int64
	cache  map[string][]byte
	cached int64
}

func newBlobReader(ctx context.Context, cat *catFile, owns bool, lim limits) *blobReader {
	return &blobReader{ctx: ctx, cat: cat, owns: owns, lim: lim, cache: map[string][]byte{}}
}

var errClosed = errors.New("the revision was closed")

// close makes every later read fail, and stops the git process when the reader owns it.
func (b *blobReader) close() {
	b.mu.Lock()
	if b.err == nil {
		b.err = errClosed
	}
	b.mu.Unlock()
	if b.owns {
		b.cat.close()
	}
}

// read returns a copy of blob oid, which the listing said holds size bytes; name is its path,
// for errors.
func (b *blobReader) read(oid string, size int64, name string) ([]byte, error) {
	if size == missingBlob {
		return nil, ErrMissingBlob // never asked of cat-file, which would try to fetch it
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
		b.err = context.Cause(b.ctx)
		b.cat.abort(b.err) // at once, not when exec notices the context
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
		b.err = err
		return nil, err
	}
	b.spent += size
	if size <= b.lim.cacheEntry && b.cached+size <= b.lim.cache {
		b.cache[oid], b.cached = data, b.cached+size
		return bytes.Clone(data), nil
	}
	return data, nil
}

// fetch asks the git process for oid and reads its answer.
func (b *blobReader) fetch(oid string, size int64, name string) ([]byte, error) {
	var data []byte
	err := b.cat.batch("contents", []string{oid}, func(_ int, a answer, r io.Reader) error {
		switch {
		case a.missing || a.ambiguous || a.oid != oid || a.typ != "blob":
			return fmt.Errorf("git cat-file: %q (%s): not a blob in the repository", name, oid)
		case a.size != size: // the limits were checked against the listing's sizes: cat-file must agree
			return fmt.Errorf("git cat-file: %q is %d bytes, the listing said %d", name, a.size, size)
		}
		var err error
		data, err = readContents(a, ctxReader{b.ctx, r}, size, fmt.Sprintf("%q", name))
		return err
	})
	return data, err
}
