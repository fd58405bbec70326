//go:build !unix

package ownership

import (
	"io/fs"
	"os"
)

// OpenNoFollow opens path for reading. Without O_NOFOLLOW here, the directory's access control
// list is what keeps others out.
func OpenNoFollow(path string) (*os.File, error) { return os.Open(path) }

// Private cannot read a Unix owner and mode on this platform, so it accepts fi; build cache
// entries are still authenticated when a key is given.
func Private(fs.FileInfo, string, fs.FileMode) error { return nil }
