//go:build unix

package ownership

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow opens path for reading, refusing a symlink at its last component.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// Private refuses fi (named path) unless the running user owns it and no bit of forbidden is
// set in its mode.
func Private(fi fs.FileInfo, path string, forbidden fs.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: cannot read its owner", path)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s belongs to uid %d, not to the user running the gate (uid %d)", path, st.Uid, uid)
	}
	if bad := fi.Mode().Perm() & forbidden; bad != 0 {
		who := "group or others can write it"
		if forbidden&0o044 != 0 {
			who = "group or others can read or write it"
		}
		return fmt.Errorf("%s has mode %04o: %s (chmod go-rwx)", path, fi.Mode().Perm(), who)
	}
	return nil
}
