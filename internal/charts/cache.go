// Package charts obtains the Helm charts HelmReleases install, as Flux's source-controller
// would hand them to helm-controller: from a HelmRepository (an HTTP index or an OCI
// registry), an OCIRepository, or a chart directory of the repository itself. It reads charts
// pulled beforehand (--charts, `helm pull` output) and a content-addressed cache offline, and
// downloads only when the network is allowed, bounded in time and size. It never runs
// anything a chart brings and never renders: internal/helmrender does.
package charts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubeforensics/suite/internal/cache"
)

// MaxChartBytes bounds a packaged chart, read from anywhere.
const MaxChartBytes = 20 << 20

// Cache keeps chart archives by the sha256 digest of their bytes (blobs/<hex>.tgz), and the
// references that led to them (refs/<sha256 of the key>, holding the digest): a repository
// chart by URL, name and version, an OCI chart by reference and tag or digest. A blob is
// verified against its name on every read, so a damaged or swapped file is a miss, never a
// chart. The directory must belong to the user running the gate and be writable by nobody
// else: OpenCache refuses it otherwise.
type Cache struct {
	dir string
}

// DefaultCacheDir is kubeforensics/charts under the user's cache directory ($XDG_CACHE_HOME,
// else $HOME/.cache), next to the build cache; "" when neither is set.
func DefaultCacheDir(getenv func(string) string) string {
	return cache.Dir(getenv, cache.Charts)
}

// OpenCache opens the cache at dir, creating it with mode 0700. It refuses a directory that
// another user owns or that group or others may write.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("chart cache: no directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("chart cache: %w", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "blobs"), filepath.Join(dir, "refs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("chart cache: %w", err)
		}
		if err := checkPrivate(d); err != nil {
			return nil, err
		}
	}
	return &Cache{dir: dir}, nil
}

// ErrUntrustedCache is cache.ErrUntrusted: a chart cache directory another user owns or group
// or others may write: whoever can write it can choose what a chart renders, so it is refused.
// Its refusals name the chart cache.
var ErrUntrustedCache = cache.ErrUntrusted

// checkPrivate refuses a directory not owned by the current user or writable by others.
func checkPrivate(dir string) error { return cache.CheckDir("chart cache", dir) }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

func refName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Digest is the sha256 digest of data, "sha256:<hex>".
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Lookup returns the archive the key led to, and its digest; ok is false on a miss (nothing
// stored, or a blob that no longer matches its digest).
func (c *Cache) Lookup(key string) (data []byte, digest string, ok bool) {
	if c == nil {
		return nil, "", false
	}
	ref, err := os.ReadFile(filepath.Join(c.dir, "refs", refName(key)))
	if err != nil {
		return nil, "", false
	}
	digest = strings.TrimSpace(string(ref))
	data, ok = c.Blob(digest)
	return data, digest, ok
}

// Blob reads the archive of digest, verified.
func (c *Cache) Blob(digest string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	hexsum, ok := strings.CutPrefix(digest, "sha256:")
	if !ok || len(hexsum) != 64 || strings.Trim(hexsum, "0123456789abcdef") != "" {
		return nil, false
	}
	f, err := os.Open(filepath.Join(c.dir, "blobs", hexsum+".tgz"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxChartBytes+1))
	if err != nil || len(data) > MaxChartBytes || Digest(data) != digest {
		return nil, false
	}
	return data, true
}

// Store keeps data under its digest and records that key leads to it.
func (c *Cache) Store(key string, data []byte) error {
	if c == nil {
		return nil
	}
	digest := Digest(data)
	if err := c.write(filepath.Join("blobs", strings.TrimPrefix(digest, "sha256:")+".tgz"), data); err != nil {
		return err
	}
	return c.write(filepath.Join("refs", refName(key)), []byte(digest+"\n"))
}

// write replaces name atomically with a 0600 file.
func (c *Cache) write(name string, data []byte) error {
	p := filepath.Join(c.dir, name)
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("chart cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o600)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("chart cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("chart cache: %w", err)
	}
	return nil
}
