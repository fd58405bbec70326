package kbuild

import (
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// recordingFS is the build's on-disk file system with every question asked of it logged.
type recordingFS struct {
	filesys.FileSystem
	log *ReadLog
}

func (r recordingFS) Create(p string) (filesys.File, error) {
	r.log.fail("the build created " + p + " on disk")
	return r.FileSystem.Create(p)
}

func (r recordingFS) Mkdir(p string) error {
	r.log.fail("the build made a directory on disk")
	return r.FileSystem.Mkdir(p)
}

func (r recordingFS) MkdirAll(p string) error {
	r.log.fail("the build made a directory on disk")
	return r.FileSystem.MkdirAll(p)
}

func (r recordingFS) RemoveAll(p string) error {
	r.log.fail("the build removed files on disk")
	return r.FileSystem.RemoveAll(p)
}

func (r recordingFS) WriteFile(p string, data []byte) error {
	r.log.fail("the build wrote " + p + " on disk")
	return r.FileSystem.WriteFile(p, data)
}

func (r recordingFS) Open(p string) (filesys.File, error) {
	r.log.content(p)
	return r.FileSystem.Open(p)
}

func (r recordingFS) ReadFile(p string) ([]byte, error) {
	r.log.content(p)
	return r.FileSystem.ReadFile(p)
}

func (r recordingFS) ReadDir(p string) ([]string, error) {
	r.log.add(p)
	return r.FileSystem.ReadDir(p)
}

func (r recordingFS) Walk(p string, fn filepath.WalkFunc) error {
	r.log.add(p)
	return r.FileSystem.Walk(p, fn)
}

// Glob records the pattern's directory up to its first wildcard: anything below may match.
func (r recordingFS) Glob(pattern string) ([]string, error) {
	dir := pattern
	if i := strings.IndexAny(pattern, `*?[\`); i >= 0 {
		dir = filepath.Dir(pattern[:i] + "x")
	}
	r.log.add(dir)
	return r.FileSystem.Glob(pattern)
}

func (r recordingFS) Exists(p string) bool {
	r.log.probe(p)
	return r.FileSystem.Exists(p)
}

func (r recordingFS) IsDir(p string) bool {
	r.log.probe(p)
	return r.FileSystem.IsDir(p)
}

func (r recordingFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	r.log.probe(p)
	return r.FileSystem.CleanedAbs(p)
}
