package gitops

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Snapshot is one revision of a Repo on disk.
type Snapshot struct {
	// Rev is the revision as given; "" for the working tree.
	Rev string
	// Commit is the full commit id Rev resolved to; "" for the working tree.
	Commit string
	// Dir is the root of the files: a temporary directory, or the working tree itself.
	Dir  string
	temp bool
}

// Snapshot returns the files of rev. An empty rev is the working tree as it is, including
// uncommitted and untracked files, without a copy. Any other rev is resolved to a commit and
// extracted with `git archive` into a temporary directory that Close removes. An unknown rev
// is bad input.
func (r *Repo) Snapshot(rev string) (*Snapshot, error) {
	if rev == "" {
		return &Snapshot{Dir: r.Dir}, nil
	}
	commit, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	dir, err := mkSnapshotDir()
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, err
	}
	s := &Snapshot{Rev: rev, Commit: commit, Dir: dir, temp: true}
	if err := r.archive(commit, dir); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("extracting %s (%s): %w", rev, commit, err)
	}
	return s, nil
}

// Close removes the snapshot's temporary directory; it leaves a working tree alone.
func (s *Snapshot) Close() error {
	if !s.temp {
		return nil
	}
	return os.RemoveAll(s.Dir)
}

// archive streams `git archive` of commit into dir.
func (r *Repo) archive(commit, dir string) error {
	cmd := exec.Command("git", "-C", r.Dir, "archive", "--format=tar", commit)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	xerr := untar(out, dir)
	// Drain what is left so git does not block on a full pipe when untar stopped early.
	_, _ = io.Copy(io.Discard, out)
	if werr := cmd.Wait(); werr != nil {
		return fmt.Errorf("git archive: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return xerr
}

// untar writes a tar stream into dir: directories, regular files and symlinks. Entries that
// would land outside dir are refused.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeXHeader {
				continue
			}
			return fmt.Errorf("archive entry %q is outside the snapshot", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(target, 0o755)
		case tar.TypeReg:
			err = writeFile(target, tr, os.FileMode(h.Mode).Perm())
		case tar.TypeSymlink:
			if err = os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
				err = os.Symlink(h.Linkname, target)
			}
		}
		if err != nil {
			return err
		}
	}
}

func writeFile(path string, r io.Reader, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// mkSnapshotDir makes the directory a revision is extracted into: under memory-backed
// /dev/shm where it exists and is writable (a snapshot is small, short-lived and written file
// by file, which costs several times more on a disk), else in the temporary directory. An
// explicit $TMPDIR wins.
func mkSnapshotDir() (string, error) {
	if os.Getenv("TMPDIR") == "" {
		if dir, err := os.MkdirTemp("/dev/shm", "gitops-snapshot-"); err == nil {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "gitops-snapshot-")
}
