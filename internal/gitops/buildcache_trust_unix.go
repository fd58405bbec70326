//go:build unix

package gitops

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens path for reading, refusing a symlink at its last component.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// ownedPrivate refuses fi (named path) unless the running user owns it and no bit of
// forbidden is set in its mode (0o022: group and others may not write; 0o077: nor read).
func ownedPrivate(fi fs.FileInfo, path string, forbidden fs.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: %s: cannot read its owner", ErrUntrustedCache, path)
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: %s belongs to uid %d, not to the user running the gate (uid %d)", ErrUntrustedCache, path, st.Uid, uid)
	}
	if bad := fi.Mode().Perm() & forbidden; bad != 0 {
		who := "group or others can write it"
		if forbidden&0o044 != 0 {
			who = "group or others can read or write it"
		}
		return fmt.Errorf("%w: %s has mode %04o: %s (chmod go-rwx)", ErrUntrustedCache, path, fi.Mode().Perm(), who)
	}
	return nil
}
