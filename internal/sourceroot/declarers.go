package sourceroot

import (
	"github.com/kubeforensics/suite/internal/gitrev"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
)

// maxDeclarerFiles bounds how many YAML files unbuiltDeclarers reads; past it, every directory
// read so far that declares a Kustomization is returned, which refuses rather than guesses.
const maxDeclarerFiles = 4000

// hasKustomizationFile reports whether dir holds a kustomization file of its own.
func hasKustomizationFile(f gitrev.Files, dir string) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if fi, err := f.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// unbuiltDeclarers lists, sorted, the directories of the tree at top (not hidden, at most
// maxRootDepth deep) whose own YAML files declare a Flux Kustomization with a spec.path, and
// that lie under no spec.path declared anywhere in the tree (read from the top level): what a
// bootstrap syncs first and no Kustomization builds. Files are read as written (peekYAML).
func unbuiltDeclarers(f gitrev.Files, top string) []string {
	declaring := map[string]bool{}
	var declared []string
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(rel string, paths []string) {
		declaring[path.Dir(rel)] = true
		declared = append(declared, paths...)
	})
	var out []string
	for dir := range declaring {
		if !slices.ContainsFunc(declared, func(p string) bool { return dir == p || strings.HasPrefix(dir, p+"/") }) {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// noDeclarer reports whether no YAML file the scan reads (the bounds of unbuiltDeclarers)
// declares a Flux Kustomization.
func noDeclarer(f gitrev.Files, top string) bool {
	none := true
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(string, []string) { none = false })
	return none
}

// selfSyncing lists, sorted, the directories of the tree at top that a Kustomization declared
// inside them builds: what a bootstrap's root Kustomization looks like wherever it lives (flux
// bootstrap's flux-system in clusters/<name>/flux-system, the older home-ops layout's
// kubernetes/flux/config/cluster.yaml building ./kubernetes/flux). Only paths from the top
// level count, and only existing directories.
func selfSyncing(f gitrev.Files, top string) []string {
	set := map[string]bool{}
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(rel string, paths []string) {
		dir := path.Dir(rel)
		for _, p := range paths {
			if (dir == p || strings.HasPrefix(dir, p+"/")) && isDir(f, filepath.Join(top, filepath.FromSlash(p))) {
				set[p] = true
			}
		}
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Entries lists, sorted, every directory of the tree at top that could be the entry path: the
// bootstrap directories (clusters/<name>, flux/cluster), the directories a Kustomization in
// them builds (a root that syncs itself), and those whose files declare Kustomizations that no
// other Kustomization builds (a hub that bootstraps spokes, e.g. hub/). It names them when an
// entry turns out to declare no Kustomization.
func Entries(top string) []string { return EntriesFiles(gitrev.Disk(top)) }

// EntriesFiles is Entries over files, whose Root is the top level.
func EntriesFiles(f gitrev.Files) []string {
	top := f.Root()
	set := map[string]bool{}
	for _, c := range entryCandidates(f, top) {
		set[c.entry] = true
	}
	for _, d := range append(selfSyncing(f, top), unbuiltDeclarers(f, top)...) {
		set[d] = true
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}
