// Package cache is what the caches kubeforensics keeps between runs share: where they live
// under the user's cache directory, and the rule that a cache is trusted only when the running
// user alone may write it. The build cache (internal/gitops), the chart cache (internal/charts)
// and the records of reviewed plans (safe-retire) each keep their own entries; whoever can
// write a cache can choose what a run takes as a build, a chart or a reviewed plan, so each
// refuses what Check refuses, with one error, ErrUntrusted, that names the cache.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubeforensics/suite/internal/ownership"
)

// The caches, each a directory of its name under kubeforensics/ in the user's cache directory.
const (
	Builds  = "builds"
	Charts  = "charts"
	Plans   = "plans"
	Renders = "renders"
)

// Dir is the directory of cache name: kubeforensics/<name> under the user's cache directory
// ($XDG_CACHE_HOME, else $HOME/.cache, as os.UserCacheDir finds it on Linux), read with
// getenv; "" (no cache) when neither is set to an absolute path.
func Dir(getenv func(string) string, name string) string {
	dir := getenv("XDG_CACHE_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "kubeforensics", name)
}

// ErrUntrusted marks a cache directory or entry that someone other than the running user owns
// or may write: it is refused, as ssh refuses a key file others can write. Every refusal is an
// *UntrustedError, which names the cache.
var ErrUntrusted = errors.New("untrusted cache")

// UntrustedError is one refusal: Cache names the cache ("build cache", "chart cache", "plan
// records"), Reason says what is wrong and names the path.
type UntrustedError struct {
	Cache  string
	Reason error
}

func (e *UntrustedError) Error() string { return "untrusted " + e.Cache + ": " + e.Reason.Error() }

// Is makes every refusal ErrUntrusted, whichever cache it names.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }

// Unwrap is the reason.
func (e *UntrustedError) Unwrap() error { return e.Reason }

// Untrusted is the refusal of the cache named cache, for reason.
func Untrusted(cache string, reason error) error {
	return &UntrustedError{Cache: cache, Reason: reason}
}

// CheckDir refuses dir unless it is a directory (not a link) that the running user owns and
// that group and others cannot write; the refusal is an *UntrustedError naming cache. A
// directory that cannot be read is an error naming cache too, but not a refusal.
func CheckDir(cache, dir string) error {
	if _, err := os.Lstat(dir); err != nil {
		return fmt.Errorf("%s: %w", cache, err)
	}
	if err := ownership.PrivateDir(dir); err != nil {
		return Untrusted(cache, err)
	}
	return nil
}

// CheckFile refuses the entry fi (named path) unless it is a regular file that the running user
// owns and that group and others cannot write.
func CheckFile(cache string, fi fs.FileInfo, path string) error {
	if !fi.Mode().IsRegular() {
		return Untrusted(cache, fmt.Errorf("%s is not a regular file", path))
	}
	if err := ownership.Private(fi, path, ownership.GroupOtherWrite); err != nil {
		return Untrusted(cache, err)
	}
	return nil
}
