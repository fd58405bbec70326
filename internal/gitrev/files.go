package gitrev

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Files is one revision's files, read-only, addressed by absolute path under Root (paths
// outside it are errors): a working tree on disk (Disk) or a commit read straight from git's
// objects (Tree). The methods answer as their os namesakes do, with the same errors
// (fs.ErrNotExist for a missing path).
type Files interface {
	// Root is the directory the files lie under.
	Root() string
	Lstat(name string) (fs.FileInfo, error)
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	// ReadDir lists a directory sorted by name, as os.ReadDir does.
	ReadDir(name string) ([]fs.DirEntry, error)
	Readlink(name string) (string, error)
	// EvalSymlinks is name with every symbolic link on it resolved, as filepath.EvalSymlinks.
	EvalSymlinks(name string) (string, error)
	// OnDisk makes the files readable on disk at Root, for a reader that can only read the
	// disk (a chart renderer, a remote build): a Tree writes its revision out then, once.
	OnDisk(ctx context.Context) error
}

// Disk is the files on disk under a directory, read with os.
type Disk string

// Root is the directory.
func (d Disk) Root() string { return string(d) }

func (Disk) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (Disk) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (Disk) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (Disk) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (Disk) Readlink(name string) (string, error)       { return os.Readlink(name) }

// EvalSymlinks is filepath.EvalSymlinks.
func (Disk) EvalSymlinks(name string) (string, error) { return filepath.EvalSymlinks(name) }

// OnDisk does nothing: the files are on disk.
func (Disk) OnDisk(context.Context) error { return nil }

// FilesOf are the files of a revision whose root is dir: files when it is non-nil, the disk
// otherwise.
func FilesOf(files Files, dir string) Files {
	if files != nil {
		return files
	}
	return Disk(dir)
}

// WalkDir walks the files under root (an absolute path under f.Root()) as filepath.WalkDir
// walks a directory: in lexical order, calling fn for root and everything below it, never
// following a symlink; fs.SkipDir and fs.SkipAll work as there.
func WalkDir(f Files, root string, fn fs.WalkDirFunc) error {
	if _, ok := f.(Disk); ok {
		return filepath.WalkDir(root, fn)
	}
	info, err := f.Lstat(root)
	if err != nil {
		err = fn(root, nil, err)
	} else {
		err = walkDir(f, root, fs.FileInfoToDirEntry(info), fn)
	}
	if errors.Is(err, fs.SkipDir) || errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func walkDir(f Files, p string, d fs.DirEntry, fn fs.WalkDirFunc) error {
	if err := fn(p, d, nil); err != nil || !d.IsDir() {
		if err == fs.SkipDir && d.IsDir() {
			err = nil
		}
		return err
	}
	entries, err := f.ReadDir(p)
	if err != nil {
		if err = fn(p, d, err); err != nil {
			if err == fs.SkipDir && d.IsDir() {
				err = nil
			}
			return err
		}
	}
	for _, e := range entries {
		if err := walkDir(f, filepath.Join(p, e.Name()), e, fn); err != nil {
			if err == fs.SkipDir {
				break
			}
			return err
		}
	}
	return nil
}

// Within reports whether p lies in or below root, lexically.
func Within(root, p string) bool {
	return p == root || len(p) > len(root) && p[len(root)] == filepath.Separator && strings.HasPrefix(p, root)
}

// Sub are the files of f under dir, a directory under f.Root(), as if dir were the root:
// nothing outside it is read, whether named or reached through a symbolic link.
func Sub(f Files, dir string) Files {
	dir = filepath.Clean(dir)
	switch d := f.(type) {
	case Disk:
		return Disk(dir)
	case sub:
		return sub{d.Files, dir}
	}
	if dir == filepath.Clean(f.Root()) {
		return f
	}
	return sub{f, dir}
}

// sub is Sub of files read elsewhere than from the disk.
type sub struct {
	Files
	root string
}

func (s sub) Root() string { return s.root }

// check refuses name when it lies outside the root, or the links on its way (and its own,
// with follow) lead outside it.
func (s sub) check(op, name string, follow bool) error {
	p := filepath.Clean(name)
	if !Within(s.root, p) {
		return &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	if !follow && p != s.root {
		p = filepath.Dir(p)
	}
	if real, err := s.Files.EvalSymlinks(p); err == nil && !Within(s.root, real) {
		return &fs.PathError{Op: op, Path: name, Err: ErrEscape}
	}
	return nil
}

func (s sub) Lstat(name string) (fs.FileInfo, error) {
	if err := s.check("lstat", name, false); err != nil {
		return nil, err
	}
	return s.Files.Lstat(name)
}

func (s sub) Stat(name string) (fs.FileInfo, error) {
	if err := s.check("stat", name, true); err != nil {
		return nil, err
	}
	return s.Files.Stat(name)
}

func (s sub) ReadFile(name string) ([]byte, error) {
	if err := s.check("open", name, true); err != nil {
		return nil, err
	}
	return s.Files.ReadFile(name)
}

func (s sub) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := s.check("open", name, true); err != nil {
		return nil, err
	}
	return s.Files.ReadDir(name)
}

func (s sub) Readlink(name string) (string, error) {
	if err := s.check("readlink", name, false); err != nil {
		return "", err
	}
	return s.Files.Readlink(name)
}

func (s sub) EvalSymlinks(name string) (string, error) {
	if err := s.check("lstat", name, true); err != nil {
		return "", err
	}
	return s.Files.EvalSymlinks(name)
}
