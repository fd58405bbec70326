package kbuild

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"

	"github.com/kubeforensics/suite/internal/gitrev"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// confinedFS returns the on-disk file system a build of root reads, confined to root as
// kustomize-controller confines it: nothing outside root can be read, whether named by a
// relative path or reached through a symlink.
//
// The controller's secure file system resolves every symlink on every access, a quarter of a
// large repository's build time. When no symlink exists under root (checked once per root)
// that resolution cannot change a path, so a lexical check gives the same answers; a tree
// with symlinks, or a build allowed to fetch remote bases into temporary clones, gets the
// controller's own file system. links are root's symlinks (Root.Links), or nil to look. A
// revision read from git's objects (files, not on disk) is read through filesFS, which
// resolves its links within it, without writing it out.
//
// Every file is read through boundedFS: no file above MaxFileSize, no YAML whose aliases
// expand past maxAliasNodes.
func confinedFS(ctx context.Context, root string, allowNetwork bool, links *LinkSet, files gitrev.Files) (filesys.FileSystem, error) {
	disk, err := confinedDisk(ctx, root, allowNetwork, links, files)
	if err != nil {
		return nil, err
	}
	return boundedFS{disk}, nil
}

func confinedDisk(ctx context.Context, root string, allowNetwork bool, links *LinkSet, files gitrev.Files) (filesys.FileSystem, error) {
	if !onDisk(files) {
		if !allowNetwork {
			return filesFS{f: files, root: filepath.Clean(files.Root())}, nil
		}
		// Remote bases are fetched into temporary clones that only the disk's secure file
		// system admits next to the root: the revision is written out for them.
		if err := files.OnDisk(ctx); err != nil {
			return nil, err
		}
	}
	if allowNetwork {
		return securefs.MakeFsOnDiskSecureBuild(root)
	}
	if links == nil {
		links = ScanRoot(ctx, root).Links
	}
	if !links.None() {
		return securefs.MakeFsOnDiskSecure(root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return lexicalFS{root: filepath.Clean(abs), disk: filesys.MakeFsOnDisk()}, nil
}

// scanCheckEvery is how many entries ScanRoot walks between two looks at its context: a
// million-file tree takes seconds to walk, a thousand entries a millisecond.
const scanCheckEvery = 1024

// SymlinkFree reports whether no symlink lies in the tree at root (.git aside) or on the path
// to it.
func SymlinkFree(root string) bool { return ScanRoot(context.Background(), root).Links.None() }

// onDisk reports whether files are read from the disk (nil is the disk).
func onDisk(files gitrev.Files) bool {
	_, disk := files.(gitrev.Disk)
	return files == nil || disk
}

// Root is one walk of a source root, shared by every build of it: where its symlinks are
// (which file system a build reads through, and which reads a list of changed paths
// describes) and its .sourceignore rules (what source-controller's artifact of it holds).
type Root struct {
	// Dir is the directory walked.
	Dir string
	// Files are the tree's files: on disk, or a revision read from git's objects.
	Files gitrev.Files
	// Links are the tree's symlinks; nil when the tree could not be walked whole (or the path
	// to it is not its real path), so no path is known to be free of them.
	Links *LinkSet
	// ignore are the root's artifact rules, loaded once when first asked.
	ignore *sourceIgnore
}

// ScanRoot walks root once (.git aside), without following symlinks. When ctx ends the walk
// stops, as one that failed: no path is then known to be free of symlinks.
func ScanRoot(ctx context.Context, root string) *Root { return ScanFiles(ctx, gitrev.Disk(root)) }

// ScanFiles is ScanRoot over files, rooted at files.Root(): a revision read from git's
// objects is walked in memory.
func ScanFiles(ctx context.Context, files gitrev.Files) *Root {
	root := files.Root()
	sc := &Root{Dir: root, Files: files, ignore: newSourceIgnore(files)}
	if real, err := files.EvalSymlinks(root); err != nil || filepath.Clean(real) != filepath.Clean(mustAbs(root)) {
		return sc
	}
	links := &LinkSet{}
	// ignoreFiles are the root-relative .sourceignore entries, in the order source-controller
	// reads them (a directory's own before its subdirectories', these in name order).
	ignoreFiles := []string{}
	failed := false
	seen := 0
	_ = gitrev.WalkDir(files, root, func(p string, d fs.DirEntry, err error) error {
		seen++
		rel, rerr := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil || rerr != nil || seen%scanCheckEvery == 0 && ctx.Err() != nil:
			failed = true
			return filepath.SkipAll
		case d.Type()&fs.ModeSymlink != 0:
			links.paths = append(links.paths, rel)
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case !d.IsDir() && d.Name() == sourceignore.IgnoreFile:
			ignoreFiles = append(ignoreFiles, rel)
		}
		return nil
	})
	if failed {
		return sc
	}
	sc.Links = links
	// The walk meets a directory's entries in name order, its subdirectories among its files.
	slices.SortStableFunc(ignoreFiles, func(a, b string) int { return slices.Compare(dirNames(a), dirNames(b)) })
	sc.ignore.known = ignoreFiles
	return sc
}

// IgnoreFiles are the root-relative .sourceignore files the root's artifact rules come from
// (none: source-controller's default rules), in the order they are read; an error when the
// rules could not be read.
func (r *Root) IgnoreFiles() ([]string, error) {
	if err := r.ignore.load(); err != nil {
		return nil, err
	}
	return r.ignore.files, nil
}

// LinkSet are the symlinks of a tree, root-relative. A nil *LinkSet stands for a tree that
// could not be walked: no path is clear of symlinks.
type LinkSet struct {
	paths []string
}

// None reports whether the tree was walked and holds no symlink.
func (l *LinkSet) None() bool { return l != nil && len(l.paths) == 0 }

// Through reports whether a symlink lies at or above root-relative p, or the links are not
// known: reading p would follow one.
func (l *LinkSet) Through(p string) bool {
	if l == nil {
		return true
	}
	for _, q := range l.paths {
		if q == p || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// Clear reports whether no symlink lies at, above or below any of the root-relative paths:
// reading them (or, for a directory, anything under it) never goes through a link, so what is
// read is what a list of changed paths describes, and never lies outside the tree.
func (l *LinkSet) Clear(paths ...string) bool {
	if l == nil {
		return false
	}
	for _, p := range paths {
		for _, q := range l.paths {
			if p == "." || q == p || strings.HasPrefix(p, q+"/") || strings.HasPrefix(q, p+"/") {
				return false
			}
		}
	}
	return true
}

// dirNames are the names of the directories down to root-relative file f, none for the root.
func dirNames(f string) []string {
	if d := path.Dir(f); d != "." {
		return strings.Split(d, "/")
	}
	return nil
}

func mustAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// lexicalFS is the on-disk file system with every path checked to lie in or below root.
type lexicalFS struct {
	root string
	disk filesys.FileSystem
}

func (l lexicalFS) check(op, p string) error {
	abs, err := filepath.Abs(p)
	if err != nil {
		return fmt.Errorf("abs path error on '%s': %v", p, err)
	}
	if abs != l.root && !strings.HasPrefix(abs, l.root+string(filepath.Separator)) {
		return &securefs.ConstraintError{Op: op, Path: p, Err: fmt.Errorf("path '%s' is not in or below '%s'", p, l.root)}
	}
	return nil
}

func (l lexicalFS) Create(p string) (filesys.File, error) {
	if err := l.check("create", p); err != nil {
		return nil, err
	}
	return l.disk.Create(p)
}

func (l lexicalFS) Mkdir(p string) error {
	if err := l.check("mkdir", p); err != nil {
		return err
	}
	return l.disk.Mkdir(p)
}

func (l lexicalFS) MkdirAll(p string) error {
	if err := l.check("mkdir", p); err != nil {
		return err
	}
	return l.disk.MkdirAll(p)
}

func (l lexicalFS) RemoveAll(p string) error {
	if err := l.check("remove", p); err != nil {
		return err
	}
	return l.disk.RemoveAll(p)
}

func (l lexicalFS) Open(p string) (filesys.File, error) {
	if err := l.check("open", p); err != nil {
		return nil, err
	}
	return l.disk.Open(p)
}

func (l lexicalFS) IsDir(p string) bool { return l.check("isdir", p) == nil && l.disk.IsDir(p) }

func (l lexicalFS) ReadDir(p string) ([]string, error) {
	if err := l.check("open", p); err != nil {
		return nil, err
	}
	return l.disk.ReadDir(p)
}

func (l lexicalFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	d, f, err := l.disk.CleanedAbs(p)
	if err != nil {
		return d, f, err
	}
	if err := l.check("abs", d.String()); err != nil {
		return "", "", err
	}
	return d, f, nil
}

func (l lexicalFS) Exists(p string) bool { return l.check("exists", p) == nil && l.disk.Exists(p) }

func (l lexicalFS) Glob(pattern string) ([]string, error) {
	paths, err := l.disk.Glob(pattern)
	var out []string
	for _, p := range paths {
		if l.check("glob", p) == nil {
			out = append(out, p)
		}
	}
	return out, err
}

func (l lexicalFS) ReadFile(p string) ([]byte, error) {
	if err := l.check("read", p); err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

func (l lexicalFS) WriteFile(p string, data []byte) error {
	if err := l.check("write", p); err != nil {
		return err
	}
	return l.disk.WriteFile(p, data)
}

func (l lexicalFS) Walk(p string, walkFn filepath.WalkFunc) error {
	return l.disk.Walk(p, func(q string, info os.FileInfo, err error) error {
		if cerr := l.check("walk", q); cerr != nil {
			return cerr
		}
		return walkFn(q, info, err)
	})
}

func hasKustomization(fs filesys.FileSystem, dir string) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if p := filepath.Join(dir, name); fs.Exists(p) && !fs.IsDir(p) {
			return true
		}
	}
	return false
}
