package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kubeforensics/suite/internal/artifactgen"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// tierCache is a BuildCache as the builds of one root use it.
type tierCache struct {
	c      *BuildCache
	root   string
	fs     gitrev.Files // the root's
	static *staticReader
	// scan is the root's walk: its symlinks and the .sourceignore files its rules come from.
	scan *kbuild.Root

	once      sync.Once
	ignoreSum string // "" when the ignore rules could not be read: nothing is cached

	mu    sync.Mutex
	files map[string]string // content digests by root-relative path
}

// forRoot is the cache as the builds of root with opts use it, reading kustomization graphs
// with static (shared with LoadPair's skipping when it has one) and the root's ignore rules;
// nil when c is: there is no cache.
func (c *BuildCache) forRoot(root string, static *staticReader, opts kbuild.Options) *tierCache {
	if c == nil {
		return nil
	}
	if static == nil {
		static = newStaticReader(root, linksOf(opts))
		static.files = opts.FilesOf(root)
	}
	return &tierCache{c: c, root: root, fs: opts.FilesOf(root), static: static, scan: opts.Root, files: map[string]string{}}
}

// throughCache builds t with build, through cache when there is one (see tierCache.around).
func throughCache(cache *tierCache, t *Tier, opts kbuild.Options, build func(kbuild.Options)) (covered []string, hit bool) {
	if cache == nil {
		build(opts)
		return nil, false
	}
	return cache.around(t, opts, build)
}

// linksOf are the symlinks of the root opts builds, nil when they are not known.
func linksOf(opts kbuild.Options) *kbuild.LinkSet {
	if opts.Root == nil {
		return nil
	}
	return opts.Root.Links
}

// around builds t with build unless the cache holds the output of a build with the same
// inputs; a build the cache could not answer is stored when it succeeded and every path it
// read or probed is among those the key covers. It returns the paths the key covers (which
// stand for the reads of a build taken from the cache) and whether t came from the cache.
func (tc *tierCache) around(t *Tier, opts kbuild.Options, build func(kbuild.Options)) (static []string, hit bool) {
	key, static := tc.key(t, opts)
	if key == "" {
		build(opts)
		return nil, false
	}
	if tc.c.get(key, t) {
		return static, true
	}
	if opts.Reads == nil {
		opts.Reads = kbuild.NewReadLog(tc.fs)
	}
	build(opts)
	if t.Err == nil && within(opts.Reads, static) {
		tc.c.put(key, t)
	}
	return static, false
}

// key is the digest of everything t's build reads, with the paths it covers; "" when the
// build cannot be bounded that way: a tier built from elsewhere than the root, one that reads
// at, above or below a symlink, remote bases allowed, a kustomization graph the static reader does not model
// (staticReader), or a directory listed whole by the controller's generator.
func (tc *tierCache) key(t *Tier, opts kbuild.Options) (string, []string) {
	switch {
	case opts.AllowNetwork, linksOf(opts) == nil,
		t.Owner != "", t.Kustomization.SourceKind == artifactgen.Kind, t.NotCovered != "":
		return "", nil
	}
	spec, subst := specFingerprint(t.Kustomization), substFingerprint(t.Kustomization.Object, opts)
	ign := tc.ignoreDigest()
	if spec == "" || subst == "" || ign == "" {
		return "", nil
	}
	in := tc.static.tier(t.Kustomization)
	if in.mustBuild != "" || !linksOf(opts).Clear(in.paths...) {
		return "", nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nnofiles=%t\nignore=%s\nspec=%s\nsubst=%s\n", tc.c.salt, opts.NoFiles, ign, spec, subst)
	for _, p := range in.paths {
		sum := tc.fileDigest(p)
		if sum == "" {
			return "", nil
		}
		fmt.Fprintf(h, "%q %s\n", p, sum)
	}
	return hex.EncodeToString(h.Sum(nil)), in.paths
}

// fileDigest is the digest of root-relative p's content, "absent" when nothing is there, ""
// for what a key cannot stand for: a directory (listed whole), anything but a regular file,
// a file too large to build.
func (tc *tierCache) fileDigest(p string) string {
	if sum, ok := tc.static.sum(p); ok {
		return sum
	}
	tc.mu.Lock()
	sum, ok := tc.files[p]
	tc.mu.Unlock()
	if ok {
		return sum
	}
	sum = digestFile(tc.fs, filepath.Join(tc.root, filepath.FromSlash(p)))
	tc.mu.Lock()
	tc.files[p] = sum
	tc.mu.Unlock()
	return sum
}

func digestFile(files gitrev.Files, abs string) string {
	fi, err := files.Lstat(abs)
	switch {
	case os.IsNotExist(err):
		return "absent"
	case err != nil, !fi.Mode().IsRegular(), fi.Size() > kbuild.MaxFileSize:
		return ""
	}
	data, err := files.ReadFile(abs)
	if err != nil {
		return ""
	}
	return contentSum(data)
}

// contentSum is the digest a cache key holds of a file's content, as digestFile computes it.
func contentSum(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// ignoreDigest is the digest of the root's .sourceignore files (none: the default rules),
// which decide whether a build may read its kustomization file.
func (tc *tierCache) ignoreDigest() string {
	tc.once.Do(func() {
		if tc.scan == nil {
			return
		}
		files, err := tc.scan.IgnoreFiles()
		if err != nil {
			return
		}
		h := sha256.New()
		for _, f := range files {
			sum := digestFile(tc.fs, filepath.Join(tc.root, filepath.FromSlash(f)))
			if sum == "" {
				return
			}
			fmt.Fprintf(h, "%q %s\n", f, sum)
		}
		tc.ignoreSum = hex.EncodeToString(h.Sum(nil))
	})
	return tc.ignoreSum
}

// within reports whether the log is complete and everything in it is covered by paths: a
// change that touches a read or probed path touches one of them.
func within(l *kbuild.ReadLog, paths []string) bool {
	read, probed, bad := l.Reads()
	return readsWithin(paths, read, probed, bad)
}

// readsWithin is within over a log's reads, probes and reason it is incomplete.
func readsWithin(paths, read []string, probed map[string]string, bad string) bool {
	if bad != "" {
		return false
	}
	for _, p := range read {
		if !covers(paths, p, false) {
			return false
		}
	}
	for p, kind := range probed {
		if !covers(paths, p, kind == "dir") {
			return false
		}
	}
	return true
}

// covers reports whether a change that touches p (at or below it, or anything below a
// directory whose kind only matters when dir) touches one of paths. A .sourceignore file
// anywhere is covered apart: LoadPair skips nothing when one changes, and a cache key holds
// the ignore rules.
func covers(paths []string, p string, dir bool) bool {
	if path.Base(p) == ".sourceignore" {
		return true
	}
	for _, s := range paths {
		switch {
		case s == p || s == "." || strings.HasPrefix(p, s+"/"):
			return true
		case dir && (p == "." || strings.HasPrefix(s, p+"/")):
			return true
		}
	}
	return false
}

// cached gives t, taken from the cache, the inputs of a build: the paths its key covers.
func (i *incremental) cached(t *Tier, static []string) {
	if t.Inputs == nil {
		return
	}
	paths := append(slices.Clone(t.Inputs.Paths), static...)
	slices.Sort(paths)
	t.Inputs.Paths = slices.Compact(paths)
}
