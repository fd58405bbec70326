package cache_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubeforensics/suite/internal/cache"
	"github.com/kubeforensics/suite/internal/charts"
	"github.com/kubeforensics/suite/internal/gitops"
)

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_CACHE_HOME", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/home/u"}, "/x/kubeforensics/builds"},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.cache/kubeforensics/builds"},
		{"relative XDG_CACHE_HOME", map[string]string{"XDG_CACHE_HOME": "rel"}, ""},
		{"neither", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cache.Dir(env(tc.env), cache.Builds); got != tc.want {
				t.Errorf("Dir = %q, want %q", got, tc.want)
			}
		})
	}
	getenv := env(map[string]string{"HOME": "/h"})
	if gitops.DefaultBuildCacheDir(getenv) != "/h/.cache/kubeforensics/builds" || charts.DefaultCacheDir(getenv) != "/h/.cache/kubeforensics/charts" {
		t.Errorf("the build and chart caches are not where Dir puts them: %q, %q", gitops.DefaultBuildCacheDir(getenv), charts.DefaultCacheDir(getenv))
	}
}

// TestTrust is the one trust check of the three caches: a directory others may write, another
// user owns, or a link in its place is refused with ErrUntrusted, in one line naming the cache
// and the directory; a private one is used. The build and chart caches are opened through their
// own packages, so the table also fails if one of them stops checking.
func TestTrust(t *testing.T) {
	caches := []struct {
		name  string // as the refusal names it
		check func(dir string) error
	}{
		{"build cache", func(dir string) error { _, err := gitops.OpenBuildCache(dir); return err }},
		{"chart cache", func(dir string) error { _, err := charts.OpenCache(dir); return err }},
		{"plan records", func(dir string) error { return cache.CheckDir("plan records", dir) }},
	}
	setups := []struct {
		name      string
		setup     func(t *testing.T, dir string)
		untrusted bool
	}{
		{"private", func(*testing.T, string) {}, false},
		{"world-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o777) }, true},
		{"group-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o770) }, true},
		{"readable by others", func(t *testing.T, dir string) { chmod(t, dir, 0o755) }, false},
		{"another user's", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("giving a file to another user needs root")
			}
			if err := os.Lchown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a symlink", func(t *testing.T, dir string) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, c := range caches {
		for _, s := range setups {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "cache")
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				s.setup(t, dir)
				err := c.check(dir)
				if !s.untrusted {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					return
				}
				if !errors.Is(err, cache.ErrUntrusted) {
					t.Fatalf("not refused as untrusted: %v", err)
				}
				if want := "untrusted " + c.name + ": " + dir; !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("the refusal is not one line naming the cache and the directory (%q): %q", want, err)
				}
			})
		}
	}
}

// TestCheckFile refuses an entry others may write or that is not a regular file.
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		mode      os.FileMode
		dir       bool
		untrusted bool
	}{
		{"private", 0o600, false, false},
		{"readable by others", 0o644, false, false},
		{"writable by others", 0o666, false, true},
		{"a directory", 0o700, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			if tc.dir {
				if err := os.Mkdir(p, tc.mode); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, nil, tc.mode); err != nil {
				t.Fatal(err)
			}
			chmod(t, p, tc.mode)
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			err = cache.CheckFile("plan records", fi, p)
			if got := errors.Is(err, cache.ErrUntrusted); got != tc.untrusted {
				t.Errorf("untrusted = %v (%v), want %v", got, err, tc.untrusted)
			}
		})
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}
