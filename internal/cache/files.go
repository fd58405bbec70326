package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// tmpPrefix starts the name of an entry being written; Trim removes those a run left behind.
const tmpPrefix = ".tmp-"

// WriteEntry writes data to the file name in dir (a shard of a cache the caller has checked)
// through a temporary file renamed into place, so a concurrent run sharing the directory reads
// the whole entry or none. A failure leaves nothing behind.
func WriteEntry(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, tmpPrefix)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}

// Trim removes the least recently used entries under dir (by modification time, which a
// reader refreshes on use) until they hold at most maxBytes, and the temporary files of runs
// that died while writing, once they are an hour old.
func Trim(dir string, maxBytes int64) error {
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			if time.Since(fi.ModTime()) > time.Hour {
				_ = os.Remove(p)
			}
			return nil
		}
		files = append(files, file{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= maxBytes {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= f.size
		}
	}
	return nil
}

// Salt names this executable (path, size, modification time), the Go toolchain and every
// module it was built from, after label (the cache and its format's version), so another
// build of the program never reads this one's entries.
func Salt(label string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%d %d\n%s\n", label, exe, fi.Size(), fi.ModTime().UnixNano(), runtime.Version())
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(h, "%s %s\n", bi.Main.Path, bi.Main.Version)
		for _, d := range bi.Deps {
			fmt.Fprintf(h, "%s %s %s\n", d.Path, d.Version, d.Sum)
		}
		for _, s := range bi.Settings {
			fmt.Fprintf(h, "%s=%s\n", s.Key, s.Value)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Refusals remembers what a run refused to use from a cache: the first file or directory
// someone else could write (the run then ends exit 3) and the entries that failed
// authentication (each a miss, named on stderr). The zero value is ready; it is safe for
// concurrent use.
type Refusals struct {
	mu        sync.Mutex
	untrusted error
	forged    []string
	nForged   int
}

// maxNamedForged bounds how many entries that failed authentication a run names.
const maxNamedForged = 10

// Refuse records err unless an earlier refusal was recorded.
func (r *Refusals) Refuse(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.untrusted == nil {
		r.untrusted = err
	}
}

// Forged records an entry at path that failed authentication.
func (r *Refusals) Forged(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nForged++
	if len(r.forged) < maxNamedForged {
		r.forged = append(r.forged, path)
	}
}

// Untrusted is the first refusal; nil when there was none.
func (r *Refusals) Untrusted() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.untrusted
}

// Unauthenticated says how many entries failed authentication and names the first few.
func (r *Refusals) Unauthenticated() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nForged, slices.Clone(r.forged)
}
