package sourceroot

import (
	"github.com/kubeforensics/suite/internal/gitrev"
	"maps"
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
// that lie under no spec.path declared anywhere in the tree (read from the top level) and are
// reached by no declared Kustomization's build through kustomization files or
// spec.components: what a bootstrap syncs first and no Kustomization builds. A kustomize
// Component that declares a Kustomization, included by apps' spec.components
// (budimanjojo/home-cluster's components/postgres-database), is built by those apps, so it is
// not an entry. Files are read as written (peekYAML).
func unbuiltDeclarers(f gitrev.Files, top string) []string {
	declaring := map[string]bool{}
	var declared []string
	reached := map[string]bool{}
	var starts []string
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(rel string, ds []declaration) {
		for _, d := range ds {
			starts = append(starts, d.components...)
			if d.path == "." {
				continue // the source's own root says nothing about which directory is the entry
			}
			declaring[path.Dir(rel)] = true
			declared = append(declared, d.path)
			starts = append(starts, d.path)
		}
	})
	for _, s := range starts {
		if isDir(f, filepath.Join(top, filepath.FromSlash(s))) {
			reach(f, top, s, reached, 0)
		}
	}
	var out []string
	for dir := range declaring {
		if !reached[dir] && !slices.ContainsFunc(declared, func(p string) bool { return dir == p || strings.HasPrefix(dir, p+"/") }) {
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
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(string, []declaration) { none = false })
	return none
}

// selfSyncing lists, sorted, the directories of the tree at top that a Kustomization declared
// inside them builds: what a bootstrap's root Kustomization looks like wherever it lives (flux
// bootstrap's flux-system in clusters/<name>/flux-system, the older home-ops layout's
// kubernetes/flux/config/cluster.yaml building ./kubernetes/flux, or flux-system/gotk-sync.yaml
// building ./ from the top level). Only paths from the top level count, and only existing
// directories. One built by another of them is a child of that root, not a root
// (wrmilling/k3s-gitops: the root's ./ builds kube-system/volsync/ks.yaml, which builds its own
// directory), and is left out.
func selfSyncing(f gitrev.Files, top string) []string {
	set := map[string]bool{}
	uses := map[string]int{}
	var top0 []string // the sources of the Kustomizations that build the top level
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(rel string, ds []declaration) {
		dir := path.Dir(rel)
		for _, d := range ds {
			if d.path == "." {
				top0 = append(top0, d.source)
				continue
			}
			uses[d.source]++
			switch {
			case (dir == d.path || strings.HasPrefix(dir, d.path+"/")) && isDir(f, filepath.Join(top, filepath.FromSlash(d.path))):
				set[d.path] = true
			}
		}
	})
	for _, src := range top0 {
		// A root shares its source with the Kustomizations it syncs; one that builds the top
		// level of a source no Kustomization here reads a directory of builds another
		// artifact's (gabe565/home-ops' flux Kustomizations: ./ of Flux's own manifests, an
		// OCIRepository, in each cluster's config).
		if uses[src] > 0 {
			set["."] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(set)), func(o string) bool { return o != p && builds(f, top, o, p) }) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// builds reports whether a build of the directory outer reads the directory inner below it:
// the whole tree below when outer has no kustomization file (kustomize-controller generates
// one that takes every manifest below, and each directory below that has its own kustomization
// file), else what its kustomization files reach.
func builds(f gitrev.Files, top, outer, inner string) bool {
	if outer != "." && !strings.HasPrefix(inner, outer+"/") {
		return false
	}
	if !hasKustomizationFile(f, filepath.Join(top, filepath.FromSlash(outer))) {
		return true
	}
	reached := map[string]bool{}
	reach(f, top, outer, reached, 0)
	for d := inner; d != "." && d != ""; d = path.Dir(d) {
		if reached[d] {
			return d == inner || !hasKustomizationFile(f, filepath.Join(top, filepath.FromSlash(d)))
		}
	}
	return false
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
