package helmrender

import (
	"io/fs"
	"path/filepath"

	kfcache "github.com/kubeforensics/suite/internal/cache"
	"github.com/kubeforensics/suite/internal/gitops"
)

// The render cache lives beside the build cache and is trusted on the same terms, through
// internal/cache: a directory or entry someone else may write is refused with cache.ErrUntrusted
// (which is gitops.ErrUntrustedCache), naming the render cache, and the run ends exit 3.

// cacheName names the render cache in its errors.
const cacheName = "render cache"

// DefaultCacheDir is where renders are kept unless told otherwise: kubeforensics/renders
// beside the build cache's kubeforensics/builds under the user's cache directory, read with
// getenv; "" (no cache) when that has none.
func DefaultCacheDir(getenv func(string) string) string {
	return kfcache.Dir(getenv, kfcache.Renders)
}

// ReadCacheKey reads the secret that authenticates entries: the build cache's own
// (--build-cache-key-file, else its environment variable), so one secret covers both.
func ReadCacheKey(file string, getenv func(string) string) ([]byte, error) {
	return gitops.ReadBuildCacheKey(file, getenv)
}

// checkDir refuses dir unless it is a directory (not a link) the running user alone writes.
func checkDir(dir string) error { return kfcache.CheckDir(cacheName, dir) }

// checkEntry refuses an entry that is not a regular file the running user alone may write,
// or whose shard directory is not the user's alone.
func checkEntry(fi fs.FileInfo, p string) error {
	if err := kfcache.CheckFile(cacheName, fi, p); err != nil {
		return err
	}
	return checkDir(filepath.Dir(p))
}
