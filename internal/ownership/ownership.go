// Package ownership decides whether a file or directory is the running user's alone, as ssh
// does with its keys: the build cache and the chart cache refuse what another user owns or
// group and others may write, because whoever can write an entry can choose a verdict.
package ownership

import (
	"fmt"
	"io/fs"
	"os"
)

// GroupOtherWrite forbids group and others to write; GroupOtherAccess also to read.
const (
	GroupOtherWrite  fs.FileMode = 0o022
	GroupOtherAccess fs.FileMode = 0o077
)

// PrivateDir refuses dir unless it is a directory (not a link) that the running user owns
// and that group and others cannot write.
func PrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s)", dir, fi.Mode().Type())
	}
	return Private(fi, dir, GroupOtherWrite)
}
