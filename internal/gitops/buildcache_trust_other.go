//go:build !unix

package gitops

import (
	"io/fs"
	"os"
)

// openNoFollow opens path for reading. Without O_NOFOLLOW here, the cache directory's access
// control list is what keeps others out.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// ownedPrivate cannot read a Unix owner and mode on this platform, so it accepts fi; entries
// are still authenticated when a key is given.
func ownedPrivate(fs.FileInfo, string, fs.FileMode) error { return nil }
