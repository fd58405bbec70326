package gitops

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// plantedTier is what an attacker's entry claims a tier builds to: a ConfigMap, where the
// real build holds the claim the change deletes.
func plantedTier() *Tier {
	return &Tier{Objects: []*unstructured.Unstructured{{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "planted", "namespace": "default"}}}}}
}

const trustKey = "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"

// TestBuildCacheRefusesOthersDirectory is issue 25 item 1: a cache directory others may
// write was used silently, so a fork's job on a shared runner could plant the build of the
// base branch's tier. Such a directory, or one another user owns, is refused, as ssh refuses
// a key file others can write; so is a link in its place.
func TestBuildCacheRefusesOthersDirectory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"world-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o777) }},
		{"group-writable", func(t *testing.T, dir string) { chmod(t, dir, 0o770) }},
		{"another user's", func(t *testing.T, dir string) { chownOther(t, dir) }},
		{"a symlink", func(t *testing.T, dir string) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "builds")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			_, err := OpenBuildCache(dir)
			if !errors.Is(err, ErrUntrustedCache) {
				t.Fatalf("opened: %v", err)
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dir) {
				t.Errorf("the refusal is not one line naming the directory: %q", err)
			}
		})
	}
	if _, err := OpenBuildCache(filepath.Join(t.TempDir(), "new", "builds")); err != nil {
		t.Errorf("a fresh directory is refused: %v", err)
	}
}

// TestBuildCacheRefusesOthersEntry checks the same of an entry and of the shard holding it:
// the entry is not used, and the run learns why (Untrusted) so it can end exit 3.
func TestBuildCacheRefusesOthersEntry(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, c *BuildCache)
	}{
		{"group-writable entry", func(t *testing.T, c *BuildCache) { chmod(t, c.path(trustKey), 0o620) }},
		{"world-writable shard", func(t *testing.T, c *BuildCache) { chmod(t, filepath.Dir(c.path(trustKey)), 0o777) }},
		{"another user's entry", func(t *testing.T, c *BuildCache) { chownOther(t, c.path(trustKey)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := OpenBuildCache(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			c.put(trustKey, plantedTier())
			tc.setup(t, c)
			if c.get(trustKey, &Tier{}) {
				t.Error("the entry was used")
			}
			if err := c.Untrusted(); !errors.Is(err, ErrUntrustedCache) {
				t.Errorf("Untrusted() = %v", err)
			}
		})
	}
}

// TestBuildCacheForgedEntry is issue 25 item 1's attack itself: keys are computable from
// public content, so whoever can write the cache (a store restored from another job) can put
// an entry under the key of the candidate's tier. With a secret the attacker does not hold,
// such an entry is a miss, counted and named; the gate's own entries still hit.
func TestBuildCacheForgedEntry(t *testing.T) {
	dir := t.TempDir()
	secret := []byte("0123456789abcdef0123456789abcdef")
	attacker, err := OpenBuildCache(dir) // writes the directory, knows no secret
	if err != nil {
		t.Fatal(err)
	}
	attacker.put(trustKey, plantedTier())
	gate, err := OpenKeyedBuildCache(dir, secret)
	if err != nil {
		t.Fatal(err)
	}
	if gate.get(trustKey, &Tier{}) {
		t.Fatal("an entry written without the secret was taken as the tier's build")
	}
	if n, named := gate.Unauthenticated(); n != 1 || len(named) != 1 || named[0] != gate.path(trustKey) {
		t.Errorf("Unauthenticated() = %d %v, want the entry named", n, named)
	}
	wrong, err := OpenKeyedBuildCache(dir, []byte("another secret, 32 bytes long!!!"))
	if err != nil {
		t.Fatal(err)
	}
	wrong.put(trustKey, plantedTier())
	if gate.get(trustKey, &Tier{}) {
		t.Error("an entry written under another secret was taken")
	}
	gate.put(trustKey, plantedTier())
	if !gate.get(trustKey, &Tier{}) {
		t.Error("the gate's own entry is a miss")
	}
	if err := gate.Untrusted(); err != nil {
		t.Errorf("Untrusted() = %v for a directory only this user writes", err)
	}
}

// TestReadBuildCacheKey checks where the secret comes from: a key file only its owner can
// read, else the environment variable; a short key or a file others can read is refused.
func TestReadBuildCacheKey(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		chmod(t, p, mode)
		return p
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == BuildCacheKeyEnv {
				return v
			}
			return ""
		}
	}
	good := write("good", "0123456789abcdef0123\n", 0o600)
	if k, err := ReadBuildCacheKey(good, env("")); err != nil || string(k) != "0123456789abcdef0123" {
		t.Errorf("key file: %q, %v", k, err)
	}
	if k, err := ReadBuildCacheKey("", env("from-the-environment-1234")); err != nil || string(k) != "from-the-environment-1234" {
		t.Errorf("environment: %q, %v", k, err)
	}
	if k, err := ReadBuildCacheKey("", env("")); err != nil || k != nil {
		t.Errorf("none: %q, %v", k, err)
	}
	for name, p := range map[string]string{
		"readable by others": write("open", "0123456789abcdef0123", 0o644),
		"too short":          write("short", "secret", 0o600),
		"missing":            filepath.Join(dir, "none"),
	} {
		if _, err := ReadBuildCacheKey(p, env("from-the-environment-1234")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// chownOther gives p to another user (nobody), which only root may do.
func chownOther(t *testing.T, p string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	if err := os.Lchown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
}
