package kbuild

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// sourceIgnore is what source-controller leaves out of the artifact it makes of a source root,
// so a build sees the files kustomize-controller sees. Its rules are those of fluxcd/pkg's
// artifact storage (SourceIgnoreFilter over sourceignore.LoadIgnorePatterns): the .sourceignore
// files of the whole tree, each scoped to its directory, read before those of its
// subdirectories; with none, the default rules (VCS files, images and archives, CI
// configuration such as .github/ and .circleci/, .sops.yaml, .goreleaser.yml, .flux.yaml);
// with some, only the VCS rules and theirs (a .sourceignore replaces the defaults, as in the
// controller). A GitRepository's spec.ignore is not read.
//
// The rules are loaded once, on first use, and shared by every build of the root.
type sourceIgnore struct {
	root string
	fs   gitrev.Files

	// known are the tree's .sourceignore files when a walk already found them (ScanRoot),
	// nil to look for them.
	known []string

	once    sync.Once
	domain  []string
	files   []string // the .sourceignore files read, relative to root
	matcher gitignore.Matcher
	err     error
}

// newSourceIgnore returns the rules of the tree at root, loaded when first asked.
func newSourceIgnore(files gitrev.Files) *sourceIgnore {
	return &sourceIgnore{root: files.Root(), fs: files}
}

func (s *sourceIgnore) load() error {
	s.once.Do(func() {
		abs := filepath.Clean(mustAbs(s.root))
		s.domain = strings.Split(abs, string(filepath.Separator))
		var ps []gitignore.Pattern
		if s.known != nil {
			ps, s.err = s.readKnown(abs)
		} else {
			ps, s.err = s.readDir(abs, s.domain)
		}
		if s.err != nil {
			return
		}
		if len(ps) == 0 {
			s.matcher = sourceignore.NewDefaultMatcher(nil, s.domain)
			return
		}
		s.matcher = sourceignore.NewMatcher(append(sourceignore.VCSPatterns(s.domain), ps...))
	})
	return s.err
}

// readKnown reads the .sourceignore files a walk found, in its order, as readDir would.
func (s *sourceIgnore) readKnown(abs string) ([]gitignore.Pattern, error) {
	var ps []gitignore.Pattern
	for _, f := range s.known {
		domain := append(append([]string(nil), s.domain...), dirNames(f)...)
		more, err := s.readFile(filepath.Join(abs, filepath.FromSlash(f)), domain)
		if err != nil {
			return nil, err
		}
		ps = append(ps, more...)
	}
	return ps, nil
}

// readFile reads the rules of one .sourceignore file p, scoped to domain; none when p does not
// exist.
func (s *sourceIgnore) readFile(p string, domain []string) ([]gitignore.Pattern, error) {
	switch fi, err := s.fs.Lstat(p); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file: its ignore rules are not read", s.rel(p))
	case fi.Size() > MaxFileSize:
		return nil, fmt.Errorf("%s is larger than %d bytes", s.rel(p), MaxFileSize)
	}
	data, err := s.fs.ReadFile(p)
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, s.rel(p))
	return sourceignore.ReadPatterns(bytes.NewReader(data), domain), nil
}

// readDir reads dir's .sourceignore, then its subdirectories' (.git aside) in name order, each
// pattern scoped to the directory that holds it. Only regular files are read, at most
// MaxFileSize each: a .sourceignore that is a symlink could point outside the tree.
func (s *sourceIgnore) readDir(dir string, domain []string) ([]gitignore.Pattern, error) {
	ps, err := s.readFile(filepath.Join(dir, sourceignore.IgnoreFile), domain)
	if err != nil {
		return nil, err
	}
	entries, err := s.fs.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == ".git" {
			continue
		}
		sub := append(append(make([]string, 0, len(domain)+1), domain...), e.Name())
		more, err := s.readDir(filepath.Join(dir, e.Name()), sub)
		if err != nil {
			return nil, err
		}
		ps = append(ps, more...)
	}
	return ps, nil
}

func (s *sourceIgnore) rel(p string) string {
	r, err := filepath.Rel(mustAbs(s.root), p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// excluded reports whether the artifact leaves out the file (or directory, isDir) at p, a path
// in or below the root. Files are judged one by one, as the controller archives them.
func (s *sourceIgnore) excluded(p string, isDir bool) bool {
	if s.load() != nil {
		return false
	}
	return s.matcher.Match(strings.Split(filepath.Clean(mustAbs(p)), string(filepath.Separator)), isDir)
}
