package gitops

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"github.com/kubeforensics/suite/internal/cache"
	"github.com/kubeforensics/suite/internal/ownership"
	"io"
	"strings"
)

// ErrUntrustedCache is cache.ErrUntrusted: a build cache directory, shard or entry that
// someone other than the running user owns or may write: whoever can write an entry decides
// what the gate takes as a tier's build, so the run refuses it (exit 3). Its refusals name the
// build cache (cacheName).
var ErrUntrustedCache = cache.ErrUntrusted

// cacheName names the build cache in its errors.
const cacheName = "build cache"

// BuildCacheKeyEnv names the environment variable that may hold the key entries are
// authenticated with (a CI secret fills it); --build-cache-key-file is the other way.
const BuildCacheKeyEnv = "KUBEFORENSICS_BUILD_CACHE_KEY"

// minCacheKey is the shortest key accepted: 16 bytes, 128 bits when random.
const minCacheKey = 16

// ReadBuildCacheKey reads the key from file, or when file is "" from the environment variable
// BuildCacheKeyEnv (through getenv); nil when neither is given. A key file must belong to the
// running user and be readable by nobody else; surrounding whitespace is not part of the key.
func ReadBuildCacheKey(file string, getenv func(string) string) ([]byte, error) {
	var key string
	switch {
	case file != "":
		f, err := ownership.OpenNoFollow(file)
		if err != nil {
			return nil, fmt.Errorf("build cache key: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("build cache key: %w", err)
		}
		if err := ownership.Private(fi, file, ownership.GroupOtherAccess); err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return nil, fmt.Errorf("build cache key %s: %w", file, err)
		}
		key = string(data)
	case getenv != nil && getenv(BuildCacheKeyEnv) != "":
		key, file = getenv(BuildCacheKeyEnv), "$"+BuildCacheKeyEnv
	default:
		return nil, nil
	}
	key = strings.TrimSpace(key)
	if len(key) < minCacheKey {
		return nil, fmt.Errorf("build cache key %s: %d bytes, want at least %d (for example `head -c 32 /dev/urandom | base64`)", file, len(key), minCacheKey)
	}
	return []byte(key), nil
}

// entryTag authenticates an entry: HMAC-SHA256, under the cache's key, of the key the entry
// is stored under and its content. Without a key (an empty one) it only detects damage:
// anyone can compute it, so only the directory's ownership keeps entries honest then.
func (c *BuildCache) entryTag(key string, payload []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	fmt.Fprintf(m, "kubeforensics build cache entry\n%s\n", key)
	m.Write(payload)
	return m.Sum(nil)
}

// entryTagSize is how many bytes the tag takes at the start of an entry.
const entryTagSize = sha256.Size

// Untrusted is the first cache file or directory the run refused because someone other than
// the running user could have written it (wrapping ErrUntrustedCache); nil when none was.
func (c *BuildCache) Untrusted() error {
	if c == nil {
		return nil
	}
	return c.refusals.Untrusted()
}

// Unauthenticated says how many entries failed authentication (forged, damaged, or written
// under another key or none) and names the first few; each was a miss and built again.
func (c *BuildCache) Unauthenticated() (int, []string) {
	if c == nil {
		return 0, nil
	}
	return c.refusals.Unauthenticated()
}

// Keyed reports whether entries are authenticated with a key kept outside the cache.
func (c *BuildCache) Keyed() bool { return c != nil && len(c.secret) > 0 }

// checkDir refuses dir unless it is a directory (not a link) the running user alone writes.
func checkDir(dir string) error { return cache.CheckDir(cacheName, dir) }
