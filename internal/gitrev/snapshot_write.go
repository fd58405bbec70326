//go:build unix

package gitrev

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// treeWriter creates a checked tree's entries (checkTree) under one directory, in the order
// ls-tree lists them. It keeps open the directories on the path to the last entry, so an
// entry costs one openat relative to its directory instead of a walk from the root; every
// directory is opened without following a symlink, and every file is created new (O_EXCL,
// O_NOFOLLOW), so nothing is written through a link or outside the directory.
type treeWriter struct {
	// open are the directories from the root ("") down to the last one used.
	open []openDir
}

type openDir struct {
	path string
	f    *os.File
}

func newTreeWriter(dir string) (*treeWriter, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	return &treeWriter{open: []openDir{{path: "", f: f}}}, nil
}

// Close closes the directories it holds open.
func (w *treeWriter) Close() error {
	var errs []error
	for _, d := range w.open {
		errs = append(errs, d.f.Close())
	}
	w.open = nil
	return errors.Join(errs...)
}

// at returns the open directory p ("" for the root), opening what lies between it and the
// deepest open directory above it.
func (w *treeWriter) at(p string) (int, error) {
	for len(w.open) > 1 {
		top := w.open[len(w.open)-1].path
		if top == p || strings.HasPrefix(p, top+"/") {
			break
		}
		_ = w.open[len(w.open)-1].f.Close()
		w.open = w.open[:len(w.open)-1]
	}
	top := w.open[len(w.open)-1]
	if top.path == p {
		return int(top.f.Fd()), nil
	}
	rest := strings.TrimPrefix(p, top.path)
	rest = strings.TrimPrefix(rest, "/")
	for _, name := range strings.Split(rest, "/") {
		parent := w.open[len(w.open)-1]
		fd, err := unix.Openat(int(parent.f.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "openat", Path: path.Join(parent.path, name), Err: err}
		}
		q := path.Join(parent.path, name)
		w.open = append(w.open, openDir{path: q, f: os.NewFile(uintptr(fd), q)})
	}
	return int(w.open[len(w.open)-1].f.Fd()), nil
}

// split is p's directory ("" for the root) and name.
func split(p string) (string, string) {
	dir, name := path.Split(p)
	return strings.TrimSuffix(dir, "/"), name
}

// mkdir creates directory p.
func (w *treeWriter) mkdir(p string) error {
	dir, name := split(p)
	fd, err := w.at(dir)
	if err != nil {
		return err
	}
	if err := unix.Mkdirat(fd, name, 0o755); err != nil {
		return &os.PathError{Op: "mkdirat", Path: p, Err: err}
	}
	return nil
}

// symlink creates p, a link to target.
func (w *treeWriter) symlink(target, p string) error {
	dir, name := split(p)
	fd, err := w.at(dir)
	if err != nil {
		return err
	}
	if err := unix.Symlinkat(target, fd, name); err != nil {
		return &os.PathError{Op: "symlinkat", Path: p, Err: err}
	}
	return nil
}

// create creates the regular file p with perm and the size bytes r holds.
func (w *treeWriter) create(p string, perm os.FileMode, r io.Reader, size int64) error {
	dir, name := split(p)
	fd, err := w.at(dir)
	if err != nil {
		return err
	}
	ffd, err := unix.Openat(fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
	if err != nil {
		return &os.PathError{Op: "openat", Path: p, Err: err}
	}
	f := os.NewFile(uintptr(ffd), p)
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return f.Close()
}

// removeDetached starts `rm -rf` on dir in a session of its own, not waited for, so it goes on
// removing after the process exits (and is not signalled with its process group).
func removeDetached(dir string) error {
	cmd := exec.Command("rm", "-rf", "--", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
