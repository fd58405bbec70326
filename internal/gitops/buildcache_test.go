package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestBuildCacheEqualsBuild loads every history of pairCases through one cache shared by all
// of them, twice (the second pass answered from the cache wherever a tier's inputs were seen
// before), with LoadPair and with Load, and checks object by object that each tree equals the
// load without a cache. The histories put different files at the same paths, so a key that
// missed an input would hand one history's objects to another.
func TestBuildCacheEqualsBuild(t *testing.T) {
	ctx := context.Background()
	g, repo, baseCommit := pairRepo(t)
	cache, err := OpenBuildCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, noFiles := range []bool{true, false} {
		plain := LoadOptions{Entry: "clusters/main", NoFiles: noFiles}
		cached := plain
		cached.Cache = cache
		baseDir := snapshot(t, repo, baseCommit).Dir
		fullBase, err := Load(ctx, baseDir, plain)
		if err != nil {
			t.Fatal(err)
		}
		for pass := range 2 {
			for _, c := range pairCases() {
				cand := commitCase(g, "cache", baseCommit, c.name, c.files)
				candDir, changes, fullCand := loadCandidate(t, repo, baseCommit, cand, plain)
				where := fmt.Sprintf("%s, pass %d, NoFiles %t", c.name, pass+1, noFiles)
				pb, pc := loadPair(t, baseDir, candDir, cached, changes)
				checkFilled(t, where+", LoadPair with the cache", pb, pc, fullBase, fullCand)
				lc, err := Load(ctx, candDir, cached)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(treeView(fullCand), treeView(lc)); d != "" {
					t.Errorf("%s: Load with the cache differs from the load without it (-plain +cached):\n%s", where, d)
				}
			}
		}
	}
	hits, misses, stored := cache.Stats()
	t.Logf("hits %d, misses %d, stored %d", hits, misses, stored)
	if hits == 0 || stored == 0 {
		t.Errorf("the cache was not used: %d hits, %d stored", hits, stored)
	}
}

// TestBuildCacheEntry checks that an entry gives back the objects as built (int64 and float64
// kept apart, nulls and nesting kept), and that a damaged entry or one stored under another
// key is a miss.
func TestBuildCacheEntry(t *testing.T) {
	c, err := OpenBuildCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "labels": nil},
		"data": map[string]any{"a": "1"}, "spec": map[string]any{"one": int64(1), "onef": float64(1), "list": []any{true, nil, "s", []any{int64(2)}}}}
	in := &Tier{Objects: []*unstructured.Unstructured{{Object: obj}}, Files: []string{"a.yaml"}, Unresolved: []string{"X"},
		Undefined: []Undefined{{Var: "V", Object: "ConfigMap default/x"}}}
	key := "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"
	c.put(key, in)
	out := &Tier{}
	if !c.get(key, out) {
		t.Fatal("no entry after put")
	}
	if d := cmp.Diff(treeView(&Tree{EntryBuild: &Tier{}, Tiers: map[string]*Tier{"t": in}}), treeView(&Tree{EntryBuild: &Tier{}, Tiers: map[string]*Tier{"t": out}})); d != "" {
		t.Errorf("the entry differs from what was stored (-stored +read):\n%s", d)
	}
	other := "ab" + "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.path(other), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if c.get(other, &Tier{}) {
		t.Error("an entry stored under another key was taken")
	}
	if err := os.WriteFile(c.path(key), data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if c.get(key, &Tier{}) {
		t.Error("a truncated entry was taken")
	}
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"password": "hunter2"}}}
	withSecret := "cd" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab"
	c.put(withSecret, &Tier{Objects: []*unstructured.Unstructured{secret}})
	if _, err := os.Stat(c.path(withSecret)); err == nil {
		t.Error("a build holding a Secret's values was stored")
	}
}

// TestBuildCacheStoresOnlyCoveredBuilds checks that a build whose reads its key does not cover
// (a static reader that missed a file) or whose reads are incomplete is not stored.
func TestBuildCacheStoresOnlyCoveredBuilds(t *testing.T) {
	read := []string{"apps/web/deploy.yaml", "apps/web/kustomization.yaml"}
	probed := map[string]string{"apps/web": "dir"}
	if !readsWithin([]string{"apps/web/kustomization.yaml", "apps/web/deploy.yaml"}, read, probed, "") {
		t.Error("reads within the key's paths were refused")
	}
	if readsWithin([]string{"apps/web/kustomization.yaml"}, read, probed, "") {
		t.Error("a read outside the key's paths was accepted")
	}
	bad := "the build read /etc/passwd, outside the root"
	if readsWithin([]string{"apps/web/kustomization.yaml", "apps/web/deploy.yaml"}, read, probed, bad) {
		t.Error("an incomplete log was accepted")
	}
}

// TestBuildCacheTrim checks that Trim keeps the most recently used entries within the bound
// and removes a temporary file a dead run left.
func TestBuildCacheTrim(t *testing.T) {
	c, err := OpenBuildCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * time.Hour)
	var paths []string
	for i, name := range []string{"aa01", "aa02", "aa03"} {
		p := filepath.Join(c.Dir(), "aa", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 100), 0o600); err != nil {
			t.Fatal(err)
		}
		when := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	tmp := filepath.Join(c.Dir(), "aa", ".tmp-1")
	if err := os.WriteFile(tmp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	if err := c.Trim(250); err != nil {
		t.Fatal(err)
	}
	for i, p := range append(paths, tmp) {
		_, err := os.Stat(p)
		if kept, want := err == nil, i == 1 || i == 2; kept != want {
			t.Errorf("%s: kept %t, want %t", filepath.Base(p), kept, want)
		}
	}
}
