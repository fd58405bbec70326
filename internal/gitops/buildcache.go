package gitops

import (
	"bytes"
	"crypto/hmac"
	"encoding/gob"
	"errors"
	"fmt"
	"github.com/kubeforensics/suite/internal/cache"
	"github.com/kubeforensics/suite/internal/ownership"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A BuildCache keeps the output of tier builds on disk between runs, keyed by a digest of
// everything such a build reads (see tierKey): the Kustomization object, the substitution
// sources it reads, the content of every file its kustomization files lead to and the
// source's ignore rules, under a salt naming this program's executable and dependencies. A
// pull-request gate then builds again only what nobody built before: the base branch's
// unchanged tiers come from an earlier run.
//
// Only successful builds whose recorded reads the key covers are stored; anything else is
// built every time. An entry that does not decode or names another key is a miss. Entries
// are written to a temporary file and renamed, so concurrent runs share a directory safely.
//
// A key is no secret (anyone can compute it from public content), so an entry is only as
// honest as whoever can write it. The directory, its shards and its entries must belong to the
// running user and be writable by nobody else, or the run refuses them (ErrUntrustedCache);
// with a secret kept outside the cache (ReadBuildCacheKey) each entry also carries an
// HMAC-SHA256 under it, and one that fails it is a miss, counted and named.
type BuildCache struct {
	dir    string
	salt   string
	secret []byte

	hits, misses, stored atomic.Int64
	refusals             cache.Refusals
}

// maxCacheEntry bounds what one entry may hold when read back.
const maxCacheEntry = 256 << 20

// DefaultBuildCacheDir is where a plugin keeps its builds unless told otherwise:
// kubeforensics/builds under the user's cache directory ($XDG_CACHE_HOME, else $HOME/.cache,
// as os.UserCacheDir finds it on Linux), read with getenv; "" (no cache) when neither is set.
func DefaultBuildCacheDir(getenv func(string) string) string {
	return cache.Dir(getenv, cache.Builds)
}

// OpenBuildCache opens (creating it, mode 0700) the cache at dir, its entries authenticated
// only against damage: see OpenKeyedBuildCache.
func OpenBuildCache(dir string) (*BuildCache, error) { return OpenKeyedBuildCache(dir, nil) }

// OpenKeyedBuildCache opens (creating it, mode 0700) the cache at dir, whose entries carry an
// HMAC-SHA256 under secret (nil: none, entries then only as trustworthy as the directory). A
// directory that is a link, or that someone else owns or may write, is refused with an error
// wrapping ErrUntrustedCache.
func OpenKeyedBuildCache(dir string, secret []byte) (*BuildCache, error) {
	if dir == "" {
		return nil, errors.New("no build cache directory")
	}
	salt, err := cacheSalt()
	if err != nil {
		return nil, fmt.Errorf("build cache: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("build cache: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	// The values an unstructured object holds besides scalars (see fromNode); registering a
	// type again is a no-op.
	gob.Register(map[string]any{})
	gob.Register([]any{})
	return &BuildCache{dir: dir, salt: salt, secret: secret}, nil
}

// Dir is the cache's directory.
func (c *BuildCache) Dir() string { return c.dir }

// Stats says how many tier builds this process found in the cache, had to build and stored.
func (c *BuildCache) Stats() (hits, misses, stored int64) {
	if c == nil {
		return 0, 0, 0
	}
	return c.hits.Load(), c.misses.Load(), c.stored.Load()
}

// cacheSalt names this executable and its build (cache.Salt), so another build of the
// program never reads this one's entries.
func cacheSalt() (string, error) { return cache.Salt("kubeforensics build cache v2") }

// cacheEntry is one stored build.
type cacheEntry struct {
	Key        string
	Objects    []map[string]any
	Files      []string
	RemoteURLs []string
	Undefined  []Undefined
	Unresolved []string
	Defaulted  []string
}

func (c *BuildCache) path(key string) string { return filepath.Join(c.dir, key[:2], key) }

// get fills t's output from the entry for key and reports whether there was one.
func (c *BuildCache) get(key string, t *Tier) bool {
	e, ok := c.read(key)
	if !ok {
		c.misses.Add(1)
		return false
	}
	c.hits.Add(1)
	t.Objects = make([]*unstructured.Unstructured, len(e.Objects))
	for i, o := range e.Objects {
		t.Objects[i] = &unstructured.Unstructured{Object: o}
	}
	t.Files, t.Err, t.RemoteURLs, t.Undefined, t.Unresolved, t.Defaulted = e.Files, nil, e.RemoteURLs, e.Undefined, e.Unresolved, e.Defaulted
	now := time.Now()
	_ = os.Chtimes(c.path(key), now, now) // kept longest when used most recently (Trim)
	return true
}

// read is the entry stored under key when there is one the running user alone could have
// written and whose tag authenticates it; a shard or entry others could write is refused for
// the whole run (Untrusted), one that fails authentication is a miss (Unauthenticated).
func (c *BuildCache) read(key string) (*cacheEntry, bool) {
	p := c.path(key)
	f, err := ownership.OpenNoFollow(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if err := c.trustedEntry(f, p); err != nil {
		c.refusals.Refuse(err)
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCacheEntry+1))
	if err != nil || len(data) > maxCacheEntry {
		return nil, false
	}
	if len(data) < entryTagSize || !hmac.Equal(data[:entryTagSize], c.entryTag(key, data[entryTagSize:])) {
		c.refusals.Forged(p)
		return nil, false
	}
	var e cacheEntry
	if gob.NewDecoder(bytes.NewReader(data[entryTagSize:])).Decode(&e) != nil || e.Key != key {
		return nil, false
	}
	return &e, true
}

// trustedEntry refuses an entry, or the shard directory holding it, that is not a regular
// file (a directory) the running user alone may write.
func (c *BuildCache) trustedEntry(f *os.File, p string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	if err := cache.CheckFile(cacheName, fi, p); err != nil {
		return err
	}
	return checkDir(filepath.Dir(p))
}

// put stores t's output under key; a failure to store only costs a later build. A build
// that holds a Secret's values (data or stringData, encrypted or not) is not stored: the
// cache keeps no copy of them.
func (c *BuildCache) put(key string, t *Tier) {
	for _, o := range t.Objects {
		if o.GetKind() == "Secret" && o.GroupVersionKind().Group == "" && (o.Object["data"] != nil || o.Object["stringData"] != nil) {
			return
		}
	}
	e := cacheEntry{Key: key, Files: t.Files, RemoteURLs: t.RemoteURLs, Undefined: t.Undefined, Unresolved: t.Unresolved, Defaulted: t.Defaulted}
	e.Objects = make([]map[string]any, len(t.Objects))
	for i, o := range t.Objects {
		e.Objects[i] = o.Object
	}
	var buf bytes.Buffer
	buf.Write(make([]byte, entryTagSize)) // the tag, once the content is known
	if gob.NewEncoder(&buf).Encode(&e) != nil || buf.Len() > maxCacheEntry {
		return
	}
	data := buf.Bytes()
	copy(data, c.entryTag(key, data[entryTagSize:]))
	dir := filepath.Dir(c.path(key))
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	if err := checkDir(dir); err != nil {
		c.refusals.Refuse(err)
		return
	}
	if cache.WriteEntry(dir, filepath.Base(c.path(key)), data) != nil {
		return
	}
	c.stored.Add(1)
}

// Trim removes the least recently used entries until the cache holds at most maxBytes, and
// temporary files older than an hour (a run that died while writing).
func (c *BuildCache) Trim(maxBytes int64) error { return cache.Trim(c.dir, maxBytes) }
