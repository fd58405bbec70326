package kbuild

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// errReadOnly is the error of a write to a revision read from git's objects.
var errReadOnly = errors.New("the revision is read-only")

// filesFS is kustomize's file system over a revision read from git's objects (gitrev.Tree),
// confined to root as kustomize-controller's secure file system confines a checkout: a path
// outside root, or one that goes through a symbolic link leading out of the revision, is a
// ConstraintError; a link within it is followed. Nothing can be written.
type filesFS struct {
	f    gitrev.Files
	root string
}

// refuse turns a read of the revision into kustomize's answer: paths out of it are
// constraint errors, as the secure file system makes them.
func (x filesFS) refuse(op, p string, err error) error {
	if errors.Is(err, gitrev.ErrOutside) || errors.Is(err, gitrev.ErrEscape) {
		return &securefs.ConstraintError{Op: op, Path: p, Err: fmt.Errorf("path '%s' is not in or below '%s'", p, x.root)}
	}
	return err
}

func (x filesFS) abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func (x filesFS) Create(p string) (filesys.File, error) {
	return nil, &fs.PathError{Op: "create", Path: p, Err: errReadOnly}
}
func (x filesFS) Mkdir(p string) error { return &fs.PathError{Op: "mkdir", Path: p, Err: errReadOnly} }
func (x filesFS) MkdirAll(p string) error {
	return &fs.PathError{Op: "mkdir", Path: p, Err: errReadOnly}
}
func (x filesFS) RemoveAll(p string) error {
	return &fs.PathError{Op: "remove", Path: p, Err: errReadOnly}
}
func (x filesFS) WriteFile(p string, _ []byte) error {
	return &fs.PathError{Op: "write", Path: p, Err: errReadOnly}
}

// Open opens a file for reading (or a directory, which only Stat answers).
func (x filesFS) Open(p string) (filesys.File, error) {
	a := x.abs(p)
	fi, err := x.f.Stat(a)
	if err != nil {
		return nil, x.refuse("open", p, err)
	}
	if fi.IsDir() {
		return &revFile{info: fi}, nil
	}
	data, err := x.f.ReadFile(a)
	if err != nil {
		return nil, x.refuse("open", p, err)
	}
	return &revFile{info: fi, r: bytes.NewReader(data)}, nil
}

func (x filesFS) IsDir(p string) bool {
	fi, err := x.f.Stat(x.abs(p))
	return err == nil && fi.IsDir()
}

func (x filesFS) Exists(p string) bool {
	_, err := x.f.Stat(x.abs(p))
	return err == nil
}

func (x filesFS) ReadDir(p string) ([]string, error) {
	entries, err := x.f.ReadDir(x.abs(p))
	if err != nil {
		return nil, x.refuse("open", p, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}

// CleanedAbs is the on-disk file system's: the path with its links resolved, split into a
// directory and a file name ("" when the path is a directory).
func (x filesFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	real, err := x.f.EvalSymlinks(x.abs(p))
	if err != nil {
		if cerr := x.refuse("abs", p, err); cerr != err {
			return "", "", cerr
		}
		return "", "", fmt.Errorf("evalsymlink failure on '%s' : %w", p, err)
	}
	if x.IsDir(real) {
		return filesys.ConfirmedDir(real), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(real)), filepath.Base(real), nil
}

func (x filesFS) ReadFile(p string) ([]byte, error) {
	data, err := x.f.ReadFile(x.abs(p))
	if err != nil {
		return nil, x.refuse("read", p, err)
	}
	return data, nil
}

// Glob matches pattern as filepath.Glob does, within root only.
func (x filesFS) Glob(pattern string) ([]string, error) {
	a := x.abs(pattern)
	if !gitrev.Within(x.root, a) {
		return nil, nil
	}
	rel := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(a, x.root), string(filepath.Separator)))
	if rel == "" {
		rel = "."
	}
	matches, err := fs.Glob(ioFS{x}, rel)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		out = append(out, filepath.Join(x.root, filepath.FromSlash(m)))
	}
	return out, nil
}

// Walk walks p as filepath.Walk does: lexical order, links not followed.
func (x filesFS) Walk(p string, fn filepath.WalkFunc) error {
	return gitrev.WalkDir(x.f, x.abs(p), func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			var info os.FileInfo
			if d != nil {
				info, _ = d.Info()
			}
			return fn(q, info, x.refuse("walk", q, err))
		}
		info, ierr := d.Info()
		return fn(q, info, ierr)
	})
}

// revFile is a file of the revision opened for reading: Write is refused.
type revFile struct {
	info fs.FileInfo
	r    *bytes.Reader // nil for a directory
}

func (f *revFile) Read(p []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.info.Name(), Err: errors.New("is a directory")}
	}
	return f.r.Read(p)
}

func (f *revFile) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.info.Name(), Err: errReadOnly}
}
func (f *revFile) Close() error               { return nil }
func (f *revFile) Stat() (os.FileInfo, error) { return f.info, nil }
func (f *revFile) ReadAt(p []byte, off int64) (int, error) {
	if f.r == nil {
		return 0, io.EOF
	}
	return f.r.ReadAt(p, off)
}

// ioFS is the revision under root as an io/fs.FS, for fs.Glob.
type ioFS struct{ x filesFS }

func (i ioFS) at(name string) string { return filepath.Join(i.x.root, filepath.FromSlash(name)) }

func (i ioFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fi, err := i.x.f.Stat(i.at(name))
	if err != nil {
		return nil, err
	}
	return &revFile{info: fi}, nil
}

func (i ioFS) Stat(name string) (fs.FileInfo, error) { return i.x.f.Stat(i.at(path.Clean(name))) }

func (i ioFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return i.x.f.ReadDir(i.at(path.Clean(name)))
}
