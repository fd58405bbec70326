package kbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Limits on the work of one build. kustomize loads a kustomization (or component) again every
// time one is included, with everything below it, and has no memory of having built it: an
// overlay whose every level includes the level below twice (two paths to one directory, or a
// component listed twice) makes 2^levels loads out of a few kilobytes, each costing
// milliseconds, and a repository from a fork held a CI runner until --timeout with 13 such
// levels. The build counts what it reads and stops at the first limit passed, failing with
// ErrBuildBound. Each limit is far above what real repositories reach: a home-ops build loads
// tens of kustomizations, each once or, for a shared component, once per application, and
// reads hundreds of documents.
//
// The loads a build may make grow with the distinct kustomization files it loaded: a shared
// component loaded once per application is a few loads per file, an exponential overlay
// thousands. So the work a build can cost stays proportional to the repository's size.
const (
	// LoadsPerKustomization is how many loads a build may make per distinct kustomization
	// file it loaded, on average: each inclusion of a kustomization or component counts,
	// even of one already loaded.
	LoadsPerKustomization = 8
	// MinKustomizationLoads is how many loads a build may always make, however few files
	// it loads.
	MinKustomizationLoads = 500
	// MaxKustomizationLoads is how many loads one build may make at most.
	MaxKustomizationLoads = 10_000
	// MaxKustomizationBytes is how many bytes of kustomization files one build may load,
	// counted at each load: what bounds the patches and generators kustomize applies.
	MaxKustomizationBytes = 8 << 20
	// MaxBuildDocuments is how many YAML documents (resources, patches) one build may read
	// from files other than kustomization files, counted at each read.
	MaxBuildDocuments = 50_000
	// MaxBuildBytes is how many bytes one build may read in all, counted at each read:
	// twice MaxFileSize, and hundreds of times what a real build reads.
	MaxBuildBytes = 2 * MaxFileSize
)

// ErrBuildBound means a build passed one of the limits on its work (MaxKustomizationLoads,
// MaxKustomizationBytes, MaxBuildDocuments, MaxBuildBytes) and was stopped; the error names
// the limit, the count reached and the path it was reached at.
var ErrBuildBound = errors.New("the build passed a limit on its work")

// Work is what one build read, each read counted again when kustomize repeats it.
type Work struct {
	// Loads are the kustomization files loaded, each inclusion counted.
	Loads int64
	// KustomizationBytes are the bytes of those loads.
	KustomizationBytes int64
	// Documents are the YAML documents read from other files.
	Documents int64
	// Bytes are the bytes read in all.
	Bytes int64
}

// budget counts what one build reads and refuses every read once a limit is passed or ctx
// ends, so the build (which kustomize gives no other way to stop) ends at its next read.
type budget struct {
	ctx  context.Context
	root string

	mu   sync.Mutex
	work Work
	// loadsOf counts the loads of each kustomization file, to name the one loaded most.
	loadsOf map[string]int64
	// stopped is the first limit passed (wrapping ErrBuildBound), or ctx's cause.
	stopped error
}

func newBudget(ctx context.Context, root string) *budget {
	return &budget{ctx: ctx, root: root, loadsOf: map[string]int64{}}
}

// counted is the work counted so far.
func (b *budget) counted() Work {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.work
}

// err is why the build was stopped, nil when it was not.
func (b *budget) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}

// check refuses a read once the build was stopped or ctx ended.
func (b *budget) check() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped == nil && b.ctx.Err() != nil {
		b.stopped = context.Cause(b.ctx)
	}
	return b.stopped
}

// count adds the read of p (data) to the counts and stops the build at the first limit passed.
func (b *budget) count(p string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped != nil {
		return b.stopped
	}
	rel := b.rel(p)
	w := &b.work
	w.Bytes += int64(len(data))
	if isKustomizationFile(p) {
		w.Loads++
		w.KustomizationBytes += int64(len(data))
		b.loadsOf[rel]++
	} else {
		w.Documents += documents(data)
	}
	switch {
	case w.Loads > b.loadLimit():
		b.stop(rel, "kustomization loads", w.Loads, b.loadLimit(), fmt.Sprintf(
			"kbuild.LoadsPerKustomization: %d per distinct kustomization file, %d loaded, at least %d, at most %d",
			LoadsPerKustomization, len(b.loadsOf), MinKustomizationLoads, MaxKustomizationLoads))
	case w.KustomizationBytes > MaxKustomizationBytes:
		b.stop(rel, "bytes of kustomization files loaded", w.KustomizationBytes, MaxKustomizationBytes, "kbuild.MaxKustomizationBytes")
	case w.Documents > MaxBuildDocuments:
		b.stop(rel, "YAML documents read", w.Documents, MaxBuildDocuments, "kbuild.MaxBuildDocuments")
	case w.Bytes > MaxBuildBytes:
		b.stop(rel, "bytes read", w.Bytes, MaxBuildBytes, "kbuild.MaxBuildBytes")
	}
	return b.stopped
}

// loadLimit is how many kustomization loads the build may make, with the files it loaded so
// far; b.mu is held.
func (b *budget) loadLimit() int64 {
	return min(max(MinKustomizationLoads, LoadsPerKustomization*int64(len(b.loadsOf))), MaxKustomizationLoads)
}

// stop records that the count n of what passed limit (described by rule) at rel; b.mu is held.
func (b *budget) stop(rel, what string, n, limit int64, rule string) {
	most, times := "", int64(0)
	for p, c := range b.loadsOf {
		if c > times || c == times && p < most {
			most, times = p, c
		}
	}
	repeated := ""
	if times > 1 {
		repeated = fmt.Sprintf("; %s was loaded %d times (does an overlay include the same kustomization or component many times over?)", most, times)
	}
	b.stopped = fmt.Errorf("%w: %d %s at %s, past the limit of %d for this build (%s)%s", ErrBuildBound, n, what, rel, limit, rule, repeated)
}

func (b *budget) rel(p string) string {
	if r, err := filepath.Rel(b.root, p); err == nil && filepath.IsLocal(r) {
		return filepath.ToSlash(r)
	}
	return p
}

// isKustomizationFile reports whether p is named as kustomize names a kustomization file.
func isKustomizationFile(p string) bool {
	name := filepath.Base(p)
	for _, k := range konfig.RecognizedKustomizationFileNames() {
		if name == k {
			return true
		}
	}
	return false
}

// documents is how many YAML documents data may hold: one, and one more for each line that
// starts a document ("---").
func documents(data []byte) int64 {
	n := int64(1) + int64(bytes.Count(data, []byte("\n---")))
	if bytes.HasPrefix(data, []byte("---")) {
		n++
	}
	return n
}

// budgetFS is the file system kustomize builds on, with every read counted by a budget and
// refused once the build is stopped.
type budgetFS struct {
	filesys.FileSystem
	b *budget
}

func (f budgetFS) ReadFile(p string) ([]byte, error) {
	if err := f.b.check(); err != nil {
		return nil, err
	}
	data, err := f.FileSystem.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if err := f.b.count(p, data); err != nil {
		return nil, err
	}
	return data, nil
}

func (f budgetFS) Open(p string) (filesys.File, error) {
	if err := f.b.check(); err != nil {
		return nil, err
	}
	return f.FileSystem.Open(p)
}

func (f budgetFS) ReadDir(p string) ([]string, error) {
	if err := f.b.check(); err != nil {
		return nil, err
	}
	return f.FileSystem.ReadDir(p)
}

func (f budgetFS) Glob(pattern string) ([]string, error) {
	if err := f.b.check(); err != nil {
		return nil, err
	}
	return f.FileSystem.Glob(pattern)
}

func (f budgetFS) Walk(p string, fn filepath.WalkFunc) error {
	if err := f.b.check(); err != nil {
		return err
	}
	return f.FileSystem.Walk(p, fn)
}
