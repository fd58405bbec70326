package helmrender

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	kfcache "github.com/kubeforensics/suite/internal/cache"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/kubeforensics/suite/internal/ownership"
)

// A Cache keeps what Helm rendered for a release (its manifest and hooks) on disk between
// runs, keyed by everything the render reads (renderKey): the chart's digest, the values
// helm-controller composed, the release's name and namespaces, the Capabilities (Kubernetes
// version, API versions), the post-renderers and the schema handling, under a salt naming
// this program's executable and dependencies. A gate then renders again only what no earlier
// run rendered: the base of a changed HelmRelease comes from the run on the base branch.
//
// It is trusted as the build cache is: the directory, its shards and entries must belong to
// the running user and be writable by nobody else, or the run refuses them (exit 3); with the
// build cache's secret every entry carries an HMAC-SHA256 under it, and one that fails is a
// miss, counted and named. Renders whose values include a Secret's are never stored, nor read.
type Cache struct {
	dir    string
	salt   string
	secret []byte

	hits, misses, stored, rendered atomic.Int64

	refusals kfcache.Refusals
}

// maxEntry bounds what one entry may hold when read back: a render's output bound and room.
const maxEntry = DefaultMaxBytes + 1<<20

// OpenCache opens (creating it, mode 0700) the render cache at dir, its entries authenticated
// under secret (nil: only against damage). A directory that is a link, or that someone else
// owns or may write, is refused with an error wrapping the build cache's ErrUntrustedCache.
func OpenCache(dir string, secret []byte) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("no render cache directory")
	}
	salt, err := cacheSalt()
	if err != nil {
		return nil, fmt.Errorf("render cache: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("render cache: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	return &Cache{dir: dir, salt: salt, secret: secret}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Stats says how many renders this process found in the cache, could not find, and stored.
func (c *Cache) Stats() (hits, misses, stored int64) {
	if c == nil {
		return 0, 0, 0
	}
	return c.hits.Load(), c.misses.Load(), c.stored.Load()
}

// Rendered says how many releases this process rendered with Helm while the cache was in
// use: misses, and renders the cache cannot key (Secret values).
func (c *Cache) Rendered() int64 {
	if c == nil {
		return 0
	}
	return c.rendered.Load()
}

// Untrusted is the first file or directory of the cache the run refused because someone other
// than the running user could have written it; nil when none was.
func (c *Cache) Untrusted() error {
	if c == nil {
		return nil
	}
	return c.refusals.Untrusted()
}

// Unauthenticated says how many entries failed authentication and names the first few; each
// was a miss and rendered again.
func (c *Cache) Unauthenticated() (int, []string) {
	if c == nil {
		return 0, nil
	}
	return c.refusals.Unauthenticated()
}

func (c *Cache) refuse(err error) { c.refusals.Refuse(err) }

func (c *Cache) forgedEntry(p string) { c.refusals.Forged(p) }

// cacheSalt names this executable (path, size, modification time), the Go toolchain and every
// module it was built from, so another build of the program never reads this one's renders.
func cacheSalt() (string, error) { return kfcache.Salt("kubeforensics render cache v1") }

// entry is one stored render.
type entry struct {
	Key    string
	Output output
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key[:2], key) }

// tag authenticates an entry: HMAC-SHA256 under the secret of its key and content.
func (c *Cache) tag(key string, payload []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	fmt.Fprintf(m, "kubeforensics render cache entry\n%s\n", key)
	m.Write(payload)
	return m.Sum(nil)
}

// get is the render stored under key, when there is one the running user alone could have
// written and whose tag authenticates it.
func (c *Cache) get(key string) (*output, bool) {
	out, ok := c.read(key)
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	now := time.Now()
	_ = os.Chtimes(c.path(key), now, now) // kept longest when used most recently (Trim)
	return out, true
}

func (c *Cache) read(key string) (*output, bool) {
	p := c.path(key)
	f, err := ownership.OpenNoFollow(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	if err := checkEntry(fi, p); err != nil {
		c.refuse(err)
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEntry+1))
	if err != nil || len(data) > maxEntry {
		return nil, false
	}
	if len(data) < sha256.Size || !hmac.Equal(data[:sha256.Size], c.tag(key, data[sha256.Size:])) {
		c.forgedEntry(p)
		return nil, false
	}
	var e entry
	if gob.NewDecoder(bytes.NewReader(data[sha256.Size:])).Decode(&e) != nil || e.Key != key {
		return nil, false
	}
	return &e.Output, true
}

// put stores out under key; a failure to store only costs a later render.
func (c *Cache) put(key string, out *output) {
	var buf bytes.Buffer
	buf.Write(make([]byte, sha256.Size)) // the tag, once the content is known
	if gob.NewEncoder(&buf).Encode(&entry{Key: key, Output: *out}) != nil || buf.Len() > maxEntry {
		return
	}
	data := buf.Bytes()
	copy(data, c.tag(key, data[sha256.Size:]))
	dir := filepath.Dir(c.path(key))
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	if err := checkDir(dir); err != nil {
		c.refuse(err)
		return
	}
	if kfcache.WriteEntry(dir, filepath.Base(c.path(key)), data) != nil {
		return
	}
	c.stored.Add(1)
}

// Trim removes the least recently used entries until the cache holds at most maxBytes, and
// temporary files older than an hour (a run that died while writing).
func (c *Cache) Trim(maxBytes int64) error { return kfcache.Trim(c.dir, maxBytes) }
