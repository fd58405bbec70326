package helmrender

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/ownership"
)

// The render cache lives beside the build cache and is trusted on the same terms: this file
// is the one place it calls the build cache's directory and trust helpers.

// DefaultCacheDir is where renders are kept unless told otherwise: kubeforensics/renders
// beside the build cache's kubeforensics/builds under the user's cache directory, read with
// getenv; "" (no cache) when that has none.
func DefaultCacheDir(getenv func(string) string) string {
	builds := gitops.DefaultBuildCacheDir(getenv)
	if builds == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(builds), "renders")
}

// ReadCacheKey reads the secret that authenticates entries: the build cache's own
// (--build-cache-key-file, else its environment variable), so one secret covers both.
func ReadCacheKey(file string, getenv func(string) string) ([]byte, error) {
	return gitops.ReadBuildCacheKey(file, getenv)
}

// untrusted wraps the build cache's error: a render cache someone else may write is refused
// as a build cache is (errors.Is(err, gitops.ErrUntrustedCache)), and the run ends exit 3.
func untrusted(format string, args ...any) error {
	return fmt.Errorf("%w: render cache: %s", gitops.ErrUntrustedCache, fmt.Sprintf(format, args...))
}

// checkDir refuses dir unless it is a directory (not a link) the running user alone writes.
func checkDir(dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("render cache: %w", err)
	}
	if err := ownership.PrivateDir(dir); err != nil {
		return untrusted("%v", err)
	}
	return nil
}

// checkEntry refuses an entry that is not a regular file the running user alone may write,
// or whose shard directory is not the user's alone.
func checkEntry(fi fs.FileInfo, p string) error {
	if !fi.Mode().IsRegular() {
		return untrusted("%s is not a regular file", p)
	}
	if err := ownership.Private(fi, p, ownership.GroupOtherWrite); err != nil {
		return untrusted("%v", err)
	}
	return checkDir(filepath.Dir(p))
}
