package kbuild

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// ReadLog is the set of paths one build touched on disk (Options.Reads), safe for kustomize's
// concurrent use: what it read or listed, what it only probed (does it exist, is it a
// directory) with the answer, and why the log cannot be trusted when the build read outside
// the root, read git's metadata or wrote to disk.
type ReadLog struct {
	root   string
	files  gitrev.Files
	mu     sync.Mutex
	read   map[string]bool
	probed map[string]string
	bad    string
}

// NewReadLog is an empty log of the reads of builds of files.Root().
func NewReadLog(files gitrev.Files) *ReadLog {
	return &ReadLog{root: filepath.Clean(mustAbs(files.Root())), files: files, read: map[string]bool{}, probed: map[string]string{}}
}

// rel turns a path kustomize used into a root-relative one; ok is false (and the log
// incomplete) for a path outside the root or inside .git, which no diff describes.
func (l *ReadLog) rel(p string) (string, bool) {
	r, err := filepath.Rel(l.root, mustAbs(p))
	r = filepath.ToSlash(r)
	switch {
	case err != nil || !(r == "." || filepath.IsLocal(r)):
		l.fail(fmt.Sprintf("the build read %s, outside the root", p))
	case r == ".git" || strings.HasPrefix(r, ".git/"):
		l.fail(fmt.Sprintf("the build read %s, git's own metadata, which no diff describes", r))
	default:
		return r, true
	}
	return "", false
}

// content records a read of p's content: of a directory, kustomize's attempt to read a
// resource as a file before it tries it as a kustomization, which only learns it is one.
func (l *ReadLog) content(p string) {
	if PathKind(l.files, p) == "dir" {
		l.probe(p)
	} else {
		l.add(p)
	}
}

// add records a read or listing of p.
func (l *ReadLog) add(p string) {
	if r, ok := l.rel(p); ok {
		l.mu.Lock()
		l.read[r] = true
		l.mu.Unlock()
	}
}

// probe records a question about p's existence, with the answer.
func (l *ReadLog) probe(p string) {
	r, ok := l.rel(p)
	if !ok {
		return
	}
	kind := PathKind(l.files, filepath.Join(l.root, filepath.FromSlash(r)))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.probed[r] = kind
}

// PathKind is what p is in files: "dir", "file" (anything else that exists) or "".
func PathKind(files gitrev.Files, p string) string {
	fi, err := files.Stat(p)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return "dir"
	}
	return "file"
}

func (l *ReadLog) fail(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bad == "" {
		l.bad = why
	}
}

// generatorReads records what kustomize-controller's generator reads of dir outside the
// build's file system: the path itself, its kustomization file under each recognised name,
// the whole directory when none exists (the generator walks it to write one), and the
// Kustomization's spec.components, whose existence it checks.
func (l *ReadLog) generatorReads(dir string, obj *unstructured.Unstructured) {
	l.probe(dir)
	found := false
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if PathKind(l.files, p) == "file" {
			l.add(p) // the generator reads it
			found = true
		} else {
			l.probe(p)
		}
	}
	if !found {
		l.add(dir)
	}
	components, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "components")
	for _, c := range components {
		l.probe(filepath.Join(dir, c))
	}
}

// Reads returns what the log holds: the root-relative paths read or listed, sorted; those
// only probed, with what each was ("dir", "file" or ""); and why the log is incomplete, ""
// when it is not.
func (l *ReadLog) Reads() (paths []string, probed map[string]string, incomplete string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(maps.Keys(l.read)), maps.Clone(l.probed), l.bad
}
