//go:build !unix

package gitops

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

// write creates b: a symlink for mode 120000 (its target is the blob), else a regular file,
// executable for mode 100755, with the size bytes r holds.
func (w *treeWriter) write(b treeEntry, r io.Reader, size int64) error {
	if b.mode == "120000" {
		if size > 4096 {
			return errors.New("symlink target too long")
		}
		target, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return w.root.Symlink(string(target), b.path)
	}
	perm := os.FileMode(0o644)
	if b.mode == "100755" {
		perm = 0o755
	}
	f, err := w.root.OpenFile(b.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
