//go:build !unix

package gitrev

import (
	"errors"
	"io"
	"os"
)

// treeWriter creates a checked tree's entries (checkTree) under one directory through os.Root,
// which resolves each path from the root without following a link out; each file is created
// new (O_EXCL). The Unix version keeps directory handles open instead.
type treeWriter struct {
	root *os.Root
}

func newTreeWriter(dir string) (*treeWriter, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &treeWriter{root: root}, nil
}

// Close releases the root.
func (w *treeWriter) Close() error { return w.root.Close() }

// mkdir creates directory p.
func (w *treeWriter) mkdir(p string) error { return w.root.Mkdir(p, 0o755) }

// symlink creates p, a link to target.
func (w *treeWriter) symlink(target, p string) error { return w.root.Symlink(target, p) }

// create creates the regular file p with perm and the size bytes r holds.
func (w *treeWriter) create(p string, perm os.FileMode, r io.Reader, size int64) error {
	f, err := w.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// removeDetached is not available here: removeSnapshot removes what is left itself.
func removeDetached(string) error { return errors.New("no detached removal on this system") }
