package gitrev

import (
	"bytes"
	"io/fs"
	"path/filepath"
)

// SameFiles reports whether directory rel holds the same files with the same content under
// the roots of a and b (two revisions); a directory missing on both sides is the same, missing
// on one side is not. Symbolic links are compared by target. A read error counts as a
// difference: the caller cannot claim nothing changed.
func SameFiles(a, b Files, rel string) bool {
	la, okA := listFiles(a, filepath.Join(a.Root(), filepath.FromSlash(rel)))
	lb, okB := listFiles(b, filepath.Join(b.Root(), filepath.FromSlash(rel)))
	if !okA || !okB || len(la) != len(lb) {
		return !okA && !okB && la == nil && lb == nil
	}
	for name, ca := range la {
		cb, ok := lb[name]
		if !ok || !bytes.Equal(ca, cb) {
			return false
		}
	}
	return true
}

// listFiles reads every file under dir by relative path; ok is false when dir is missing or
// something under it could not be read (files is nil when it is missing).
func listFiles(f Files, dir string) (files map[string][]byte, ok bool) {
	if _, err := f.Lstat(dir); err != nil {
		return nil, false
	}
	files = map[string][]byte{}
	err := WalkDir(f, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := f.Readlink(p)
			files[rel] = []byte("symlink:" + target)
			return err
		}
		b, err := f.ReadFile(p)
		files[rel] = b
		return err
	})
	return files, err == nil
}
