package kbuild

import (
	"path/filepath"
	"strings"
)

// rootRelative is a build error whose text names files by their path in the source (under
// root), not on this machine: kustomize names the files it could not read by absolute path,
// and the root of a revision is a temporary directory (/dev/shm/gitops-snapshot-123/…) that
// means nothing to the reader and differs on every run.
type rootRelative struct {
	err  error
	root string
}

// inRoot wraps err so that its text names files relative to root; nil stays nil.
func inRoot(err error, root string) error {
	if err == nil {
		return nil
	}
	return rootRelative{err: err, root: mustAbs(root)}
}

func (e rootRelative) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.root+string(filepath.Separator), "")
}

func (e rootRelative) Unwrap() error { return e.err }
