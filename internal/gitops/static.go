package gitops

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/yaml"
)

// staticReads is what a tier's build may read, found from the kustomization files alone,
// without building: a superset of what the build records (Inputs), so a tier none of whose
// static paths changed builds to what it built before. mustBuild says why the reader cannot
// bound the build (a field it does not model, a path outside the root …): such a tier is
// built.
type staticReads struct {
	// paths are root-relative: a change at, below or above one may change the build.
	paths []string
	// files are the files among and below paths that exist, whose text discovery reads.
	files []string
	// anyName says a kustomization renames, patches or transforms what it builds, so the
	// tier may declare a ConfigMap or Secret of any name.
	anyName   bool
	mustBuild string
}

// staticDir is what one directory, built as a kustomization, refers to.
type staticDir struct {
	paths, files []string
	// dirs are the kustomization directories it refers to, built in turn.
	dirs      []string
	anyName   bool
	mustBuild string
}

// staticReader reads kustomization graphs under one root, each directory once; safe for
// concurrent use.
type staticReader struct {
	root  string
	files gitrev.Files // the root's
	mu    sync.Mutex
	dirs  map[string]*staticDir
	facts map[string]*fileFacts
	// tiers are the static reads of each path and spec.components read so far (tierKey): the
	// skip decision, the build cache's key and the late-source check ask for the same tier
	// again, and the candidate's reader takes the base's where the change touches none of its
	// reads (tierFromPrev). tiersRead counts the ones computed.
	tiers     map[string]staticReads
	tiersRead int
	// links are the root's symlinks: nothing at or below one is read.
	links *kbuild.LinkSet
	// prev is the reader of the other revision, whose answers hold here for what changes
	// does not touch.
	prev    *staticReader
	changes *gitrev.Changes
}

func newStaticReader(root string, links *kbuild.LinkSet) *staticReader {
	return &staticReader{root: root, files: gitrev.Disk(root), links: links, dirs: map[string]*staticDir{},
		facts: map[string]*fileFacts{}, tiers: map[string]staticReads{}}
}

// fromPrev is the other revision's reading of directory d when nothing it read changed.
func (s *staticReader) fromPrev(d string) *staticDir {
	if s.prev == nil {
		return nil
	}
	s.prev.mu.Lock()
	sd := s.prev.dirs[d]
	s.prev.mu.Unlock()
	if sd == nil || sd.mustBuild != "" {
		return nil
	}
	for _, list := range [][]string{sd.paths, sd.files} {
		for _, p := range list {
			if s.changes.Touches(p) {
				return nil
			}
		}
	}
	return sd
}

// factsFromPrev is the other revision's facts of file f when f did not change.
func (s *staticReader) factsFromPrev(f string) *fileFacts {
	if s.prev == nil || s.changes.Touches(f) {
		return nil
	}
	s.prev.mu.Lock()
	defer s.prev.mu.Unlock()
	return s.prev.facts[f]
}

// sum is the digest of file f's content when this reader (or, for a file the change does not
// touch, the other revision's) has read it.
func (s *staticReader) sum(f string) (string, bool) {
	s.mu.Lock()
	ff := s.facts[f]
	s.mu.Unlock()
	if ff == nil {
		ff = s.factsFromPrev(f)
	}
	if ff == nil || ff.sum == "" {
		return "", false
	}
	return ff.sum, true
}

// tier returns the static inputs of ks's build: its path as the controller's generator reads
// it, the Kustomization's spec.components, and every kustomization directory they lead to.
// The slices returned are shared: callers only read them.
func (s *staticReader) tier(ks kbuild.Kustomization) staticReads {
	dir := kbuild.CleanPath(ks.Path)
	var components []string
	if ks.Object != nil {
		components = stringsAt(ks.Object.Object, "spec", "components")
	}
	key := tierKey(dir, components)
	s.mu.Lock()
	in, ok := s.tiers[key]
	s.mu.Unlock()
	if !ok {
		in, ok = s.tierFromPrev(key)
	}
	if !ok {
		// Each directory's reading is kept for the reader's life (dir), so the same path and
		// components always lead to the same reads.
		in = s.readTier(dir, components)
		s.mu.Lock()
		s.tiers[key] = in
		s.tiersRead++
		s.mu.Unlock()
	}
	if ks.Object != nil && in.mustBuild == "" {
		spec, _ := ks.Object.Object["spec"].(map[string]any)
		in.anyName = in.anyName || spec["namePrefix"] != nil || spec["nameSuffix"] != nil || spec["patches"] != nil
	}
	return in
}

// tierFromPrev is the other revision's reading of the tier keyed key when nothing it read
// changed: every directory it leads to would be read from the other revision (fromPrev), so
// the reads are the same. It is remembered as this reader's own.
func (s *staticReader) tierFromPrev(key string) (staticReads, bool) {
	if s.prev == nil {
		return staticReads{}, false
	}
	s.prev.mu.Lock()
	in, ok := s.prev.tiers[key]
	s.prev.mu.Unlock()
	if !ok || in.mustBuild != "" {
		return staticReads{}, false
	}
	for _, list := range [][]string{in.paths, in.files} {
		for _, p := range list {
			if s.changes.Touches(p) {
				return staticReads{}, false
			}
		}
	}
	s.mu.Lock()
	s.tiers[key] = in
	s.mu.Unlock()
	return in, true
}

// tierKey is the key of a tier's static reads in staticReader.tiers: its cleaned path and its
// spec.components, in order.
func tierKey(dir string, components []string) string {
	return strings.Join(append([]string{dir}, components...), "\x00")
}

// readTier reads the static inputs of a build of dir with components (tier).
func (s *staticReader) readTier(dir string, components []string) staticReads {
	queue := []string{dir}
	for _, c := range components {
		j, ok := localJoin(dir, c)
		if !ok {
			return staticReads{mustBuild: fmt.Sprintf("spec.components names %q, outside the root", c)}
		}
		queue = append(queue, j)
	}
	var in staticReads
	paths, files := map[string]bool{}, map[string]bool{}
	seen := map[string]bool{}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		sd := s.dir(d)
		if sd.mustBuild != "" {
			return staticReads{mustBuild: sd.mustBuild}
		}
		for _, p := range sd.paths {
			paths[p] = true
		}
		for _, f := range sd.files {
			files[f] = true
		}
		in.anyName = in.anyName || sd.anyName
		queue = append(queue, sd.dirs...)
	}
	in.paths, in.files = slices.Sorted(maps.Keys(paths)), slices.Sorted(maps.Keys(files))
	return in
}

// dir reads directory d (root-relative) as kustomize and the controller's generator would.
func (s *staticReader) dir(d string) *staticDir {
	s.mu.Lock()
	sd, ok := s.dirs[d]
	s.mu.Unlock()
	if ok {
		return sd
	}
	if sd = s.fromPrev(d); sd == nil {
		sd = s.readDir(d)
	}
	s.mu.Lock()
	s.dirs[d] = sd
	s.mu.Unlock()
	return sd
}

func (s *staticReader) readDir(d string) *staticDir {
	sd := &staticDir{}
	if s.links.Through(d) {
		sd.mustBuild = fmt.Sprintf("a symlink lies at or above %s", d)
		return sd
	}
	if s.kind(d) != "dir" {
		sd.paths = []string{d} // it may appear
		return sd
	}
	var kfile string
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := path.Join(d, name)
		if s.links.Through(p) {
			sd.mustBuild = fmt.Sprintf("%s is a symlink", p)
			return sd
		}
		sd.paths = append(sd.paths, p)
		if kfile == "" && s.kind(p) == "file" {
			kfile = p
		}
	}
	if kfile == "" {
		// The generator lists the whole directory (kustomize fails on one it is not the
		// generator's): every file below is read or may be.
		sd.paths = append(sd.paths, d)
		sd.files, sd.mustBuild = s.filesBelow(d)
		sd.dirs = kustomizationDirs(sd.files)
		return sd
	}
	sd.files = append(sd.files, kfile)
	data, err := s.files.ReadFile(s.abs(kfile))
	if err == nil {
		err = kbuild.CheckLoad(kfile, data) // the build's own limits: size, alias bombs
	}
	if err != nil {
		sd.mustBuild = fmt.Sprintf("%s cannot be read: %v", kfile, err)
		return sd
	}
	ff := factsOf(data) // what discovery reads of it, without reading it again
	s.mu.Lock()
	s.facts[kfile] = ff
	s.mu.Unlock()
	var k map[string]any
	if err := yaml.Unmarshal(data, &k); err != nil {
		sd.mustBuild = fmt.Sprintf("%s does not parse", kfile)
		return sd
	}
	for key, v := range k {
		if why := s.field(sd, d, key, v); why != "" {
			sd.mustBuild = fmt.Sprintf("%s: %s", kfile, why)
			return sd
		}
	}
	sort.Strings(sd.dirs)
	return sd
}

// kustomizationDirs are the directories among files that hold a kustomization file, the
// outermost only. The controller's generator includes such a directory as a kustomization and
// does not descend into it; its entries may lead outside the directory listed (a cluster's
// directory without a kustomization.yaml whose subdirectory names ../../bases/app), so each is
// read as a kustomization too and what it leads to is an input of the tier.
func kustomizationDirs(files []string) []string {
	names := map[string]bool{}
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		names[n] = true
	}
	var dirs []string
	for _, f := range files {
		if names[path.Base(f)] {
			dirs = append(dirs, path.Dir(f))
		}
	}
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		if !slices.ContainsFunc(out, func(o string) bool { return d == o || strings.HasPrefix(d, o+"/") }) {
			out = append(out, d) // else below a kustomization the generator includes whole
		}
	}
	return out
}

// filesBelow lists the files under d; a symlink or an unreadable entry is a reason to build.
func (s *staticReader) filesBelow(d string) ([]string, string) {
	var out []string
	bad := ""
	_ = gitrev.WalkDir(s.files, s.abs(d), func(p string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			bad = fmt.Sprintf("%s cannot be listed", d)
			return filepath.SkipAll
		case e.Type()&fs.ModeSymlink != 0:
			bad = fmt.Sprintf("a symlink lies under %s", d)
			return filepath.SkipAll
		case e.IsDir():
			return nil
		}
		if r, err := filepath.Rel(s.root, p); err == nil {
			out = append(out, filepath.ToSlash(r))
		}
		return nil
	})
	return out, bad
}

// kind is what root-relative p is: "dir", "file" or "" (nothing). It follows a symlink, which
// only stats its target: readDir and fileFacts read nothing at or under one (kbuild.LinkSet.Through).
func (s *staticReader) kind(p string) string { return kbuild.PathKind(s.files, s.abs(p)) }

func (s *staticReader) abs(p string) string { return filepath.Join(s.root, filepath.FromSlash(p)) }
