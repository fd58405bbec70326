package sourceroot

import (
	"fmt"
	"github.com/kubeforensics/suite/internal/gitrev"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// entryCandidate is a directory laid out like the path a bootstrap tool syncs first: a
// clusters/<name> directory (flux bootstrap), or a flux/cluster directory (the home-ops
// template, synced by a FluxInstance), with the source root it implies.
type entryCandidate struct {
	// entry is the directory, relative to the repository's top level.
	entry string
	// root is the source root chosen for it, relative to the top; how says why.
	root, how string
	// entryHow says why entry is a candidate.
	entryHow string
	// declares is whether its files declare a Flux Kustomization with a spec.path.
	declares bool
	// clusters is whether it is a clusters/<name> directory.
	clusters bool
	// confirmed is whether its files' spec.paths agree with the layout's root.
	confirmed bool
}

// entryCandidates lists the entry candidates of the tree at top (not below hidden directories,
// at most maxRootDepth deep), in walk order. When some of them declare Flux Kustomizations,
// those that declare none are dropped: a bootstrap entry holds at least flux-system's own.
func entryCandidates(f gitrev.Files, top string) []entryCandidate {
	var out []entryCandidate
	_ = gitrev.WalkDir(f, top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, "/") > maxRootDepth) {
			return filepath.SkipDir
		}
		parent, name := path.Split(rel)
		parent = strings.TrimSuffix(parent, "/")
		switch {
		case path.Base(parent) == "clusters" && parent != "":
			holder := orDefault(path.Dir(parent), ".")
			c := candidateAt(f, top, rel, holder, "")
			c.clusters = true
			out = append(out, c)
		case name == "cluster" && path.Base(parent) == "flux":
			out = append(out, candidateAt(f, top, rel, ".", "the bootstrap directory "+rel+" (no clusters/ directory)"))
		}
		return nil
	})
	out = dropGroupings(f, top, dropBases(f, top, out))
	var declaring []entryCandidate
	for _, c := range out {
		if c.declares {
			declaring = append(declaring, c)
		}
	}
	if len(declaring) > 0 {
		return declaring
	}
	return out
}

// candidateAt settles the source root of the candidate entry rel: of the directories from the
// top down to rel, the one under which every spec.path its files declare is a directory
// (leaving out paths found under none), preferring def (where the layout puts it), else the
// one nearest the top; def when its files declare none, or when no directory holds them all
// (the build then names the missing path).
func candidateAt(f gitrev.Files, top, rel, def, entryHow string) entryCandidate {
	c := entryCandidate{entry: rel, root: def, entryHow: entryHow}
	paths := declaredPaths(f, filepath.Join(top, filepath.FromSlash(rel)))
	c.declares = len(paths) > 0
	if !c.declares {
		return c // how stays "": the layout's own choice
	}
	var chain []string // rel and each directory above it, up to the top
	for r := rel; ; r = path.Dir(r) {
		chain = append(chain, orDefault(r, "."))
		if r == "." || r == "" {
			break
		}
	}
	// A path found under none of them is another source's (a tenant's repository) or broken:
	// it says nothing about this root.
	var known []string
	for _, p := range paths {
		for _, r := range chain {
			if pathsUnder(f, top, r, []string{p}) {
				known = append(known, p)
				break
			}
		}
	}
	var fits []string
	for _, r := range chain {
		if len(known) > 0 && pathsUnder(f, top, r, known) {
			fits = append(fits, r)
		}
	}
	sample := "./" + paths[0]
	if len(known) > 0 {
		sample = "./" + known[0]
	}
	switch {
	case len(fits) == 0:
		c.how = "no directory holds every spec.path the Kustomizations in " + rel + " declare (" + sample + "): the layout's choice"
	case contains(fits, def):
		c.how = "the Kustomizations in " + rel + " name paths from there (" + sample + ")"
		c.confirmed = true
	default:
		c.root = fits[len(fits)-1] // the one nearest the top
		c.how = "the Kustomizations in " + rel + " name paths from there (" + sample + "), not from " + def + "/"
	}
	return c
}

func pathsUnder(f gitrev.Files, top, root string, paths []string) bool {
	for _, p := range paths {
		if !isDir(f, filepath.Join(top, filepath.FromSlash(root), filepath.FromSlash(p))) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// maxNamedDeclarers is how many directories a refusal names before it names where they are.
const maxNamedDeclarers = 5

// commonDir is the deepest directory that holds every one of dirs (slash paths from the top),
// "" when only the top level does.
func commonDir(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
	common := strings.Split(dirs[0], "/")
	for _, d := range dirs[1:] {
		parts := strings.Split(d, "/")
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}

// entryNames lists the candidates' entries for an error message.
func entryNames(cs []entryCandidate) string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.entry)
	}
	return strings.Join(names, ", ")
}

// chooseEntry settles the layout from the repository's entry candidates when neither the
// source root nor the entry is given; several candidates are refused, naming them.
func (l *Layout) chooseEntry(f gitrev.Files, top string) error {
	cs := entryCandidates(f, top)
	if len(cs) > 0 && !cs[0].declares {
		// entryCandidates keeps only those that declare when any does: here none does.
		if roots := otherRoots(f, top, cs); len(roots) > 0 {
			return undeclaredCandidates(cs, roots)
		}
	}
	switch len(cs) {
	case 0:
		switch roots := selfSyncing(f, top); len(roots) {
		case 1:
			// Where the root Kustomization is declared, not what its folder is called.
			l.SourceRoot, l.SourceRootHow = ".", "the repository's top level: the root Kustomization names its path from there"
			l.Entry, l.EntryHow = roots[0], "the directory a Kustomization declared in it builds, as a bootstrap's root Kustomization does"
			return nil
		case 0:
		default:
			return fmt.Errorf("several directories are built by a Kustomization declared in them, as a bootstrap's root is (%s): choose the entry with --path", strings.Join(roots, ", "))
		}
		if !hasKustomizationFile(f, top) {
			if roots := unbuiltDeclarers(f, top); len(roots) > 0 {
				if under := commonDir(roots); len(roots) > maxNamedDeclarers && under != "" {
					// mirceanton/home-ops: 85 apps/<namespace>/<app> directories, each with its
					// ks.yaml, which a FluxInstance syncing apps/ builds; naming them all hides that.
					return fmt.Errorf("no clusters/<name> or flux/cluster directory, and the top level has no kustomization.yaml; %d directories under %s/ declare Flux Kustomizations that no other Kustomization's path builds (%s, …): the entry is likely %s or a directory above them, which your bootstrap or FluxInstance syncs: give it with --path", len(roots), under, strings.Join(roots[:maxNamedDeclarers], ", "), under)
				}
				if len(roots) > 1 {
					return fmt.Errorf("no clusters/<name> or flux/cluster directory, and the top level has no kustomization.yaml; these directories declare Flux Kustomizations that no other Kustomization's path builds, so one of them is likely the entry: %s: choose one with --path", strings.Join(roots, ", "))
				}
				// krobertson/home-ops: a FluxInstance syncs setup/flux/config, the one directory
				// whose Kustomizations nothing in the repository builds. Something outside it
				// must sync them, as a bootstrap syncs its entry: it is used, and stderr says so.
				l.settle(candidateAt(f, top, roots[0], ".", "the only directory that declares Flux Kustomizations no other Kustomization's path builds, as what a bootstrap or FluxInstance syncs first does (no clusters/<name> or flux/cluster directory, no kustomization.yaml at the top); if yours syncs another path, give it with --path"))
				return nil
			}
		}
		l.SourceRoot, l.SourceRootHow = ".", "the repository's top level (no clusters/ or flux/cluster directory anywhere)"
		l.Entry, l.EntryHow = ".", "the top level, built whole: no clusters/<name> or flux/cluster directory and no root Kustomization that builds its own directory was found; if your bootstrap syncs another path, give it with --path"
		if noDeclarer(f, top) {
			// controlplaneio-fluxcd/d2-infra: overlays a fleet repository's ResourceSets build.
			l.EntryHow += "; no file read here declares a Flux Kustomization: if another repository's Kustomizations build this one's paths (a fleet's), gate the change there"
		}
		return nil
	case 1:
	default:
		names := entryNames(cs)
		if others := otherDeclarers(f, top, cs); len(others) > 0 {
			names += "; these also declare Kustomizations no other builds: " + strings.Join(others, ", ")
		}
		return fmt.Errorf("several directories could be the entry path (%s): choose one with --path (from the top level, or from the artifact's root with --source-root)", names)
	}
	l.settle(cs[0])
	return nil
}

// settle sets the layout to the entry candidate c: its entry and source root, and why.
func (l *Layout) settle(c entryCandidate) {
	l.SourceRoot, l.Entry = c.root, c.entry
	if c.root != "." {
		l.Entry = strings.TrimPrefix(c.entry, c.root+"/")
	}
	l.EntryHow = c.entryHow
	if c.clusters {
		l.EntryHow = "the only directory under " + path.Dir(l.Entry) + "/"
	}
	switch {
	case c.clusters && c.root == "." && (c.how == "" || c.confirmed):
		l.SourceRootHow = "the repository's top level, which holds clusters/"
	case c.clusters && (c.how == "" || c.confirmed):
		l.SourceRootHow = "detected: the only clusters/ directory is under " + c.root + "/"
	case c.how == "":
		l.SourceRootHow = "the repository's top level (no clusters/ directory; " + c.entry + " names no spec.path)"
	case c.root == ".":
		l.SourceRootHow = "the repository's top level: " + c.how
	default:
		l.SourceRootHow = "detected: " + c.root + "/: " + c.how
	}
}

// otherDeclarers lists, sorted, the directories other than the candidates cs whose files
// declare Flux Kustomizations that no Kustomization builds, the candidates' included.
func otherDeclarers(f gitrev.Files, top string, cs []entryCandidate) []string {
	return others(f, top, cs, unbuiltDeclarers(f, top))
}

// others are dirs less the candidates cs and what their Kustomizations build.
func others(f gitrev.Files, top string, cs []entryCandidate, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if !slices.ContainsFunc(cs, func(c entryCandidate) bool { return c.entry == d }) && !builtByCandidate(f, top, cs, d) {
			out = append(out, d)
		}
	}
	return out
}

// otherRoots are otherDeclarers and the directories a Kustomization declared in them builds
// (a root that syncs itself, which therefore is under a declared path), sorted, less those
// the candidates' kustomization files reach (a clusters/prod whose kustomization.yaml lists
// ../../flux/apps.yaml declares what that file declares).
func otherRoots(f gitrev.Files, top string, cs []entryCandidate) []string {
	set := map[string]bool{}
	for _, d := range append(unbuiltDeclarers(f, top), selfSyncing(f, top)...) {
		set[d] = true
	}
	reached := map[string]bool{}
	for _, c := range cs {
		reach(f, top, c.entry, reached, 0)
	}
	var out []string
	for _, d := range others(f, top, cs, slices.Sorted(maps.Keys(set))) {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(reached)), func(r string) bool {
			return r == "." || d == r || strings.HasPrefix(d, r+"/") || strings.HasPrefix(r, d+"/")
		}) {
			out = append(out, d)
		}
	}
	return out
}

// maxReachDepth bounds how many kustomization files deep reach follows.
const maxReachDepth = 8

// reach adds to reached the directory rel and, through its kustomization file, every
// directory it names and the directory of every file it names, recursively: what a build of
// rel reads.
func reach(f gitrev.Files, top, rel string, reached map[string]bool, depth int) {
	if reached[rel] || depth > maxReachDepth {
		return
	}
	reached[rel] = true
	for _, p := range namedPaths(f, top, rel) {
		if isDir(f, filepath.Join(top, filepath.FromSlash(p))) {
			reach(f, top, p, reached, depth+1)
		} else {
			reached[path.Dir(p)] = true
		}
	}
}

// undeclaredCandidates refuses clusters/<name> (or flux/cluster) directories that declare no
// Flux Kustomization when other directories declare Kustomizations nothing builds: a
// bootstrap's entry declares at least its own sync, so those others are where the entry is
// (fluxcd/flux2-hub-spoke-example's hub/, whose Kustomizations build clusters/<name>/…;
// giantswarm/gitops-template's management-clusters/MC_NAME, beside a cluster template in
// bases/clusters/capa). The refusal names them as the next command's flag.
func undeclaredCandidates(cs []entryCandidate, others []string) error {
	what := entryNames(cs) + " declares no Flux Kustomization, so it is not"
	if len(cs) > 1 {
		what = entryNames(cs) + " declare no Flux Kustomization, so none of them is"
	}
	flags := make([]string, 0, maxNamedDeclarers)
	for _, d := range others[:min(len(others), maxNamedDeclarers)] {
		flags = append(flags, "`--path "+d+"`")
	}
	more := ""
	if len(others) > maxNamedDeclarers {
		more = fmt.Sprintf(" (and %d more)", len(others)-maxNamedDeclarers)
	}
	where := others[0] + " declares Flux Kustomizations that no other directory's Kustomizations build, so it is likely the entry"
	if len(others) > 1 {
		where = fmt.Sprintf("%d directories declare Flux Kustomizations that no other directory's Kustomizations build, so one of them is likely the entry", len(others))
	}
	return fmt.Errorf("%s what a bootstrap syncs first, which declares at least its own sync; %s: give it with %s%s", what, where, strings.Join(flags, " or "), more)
}

// entryUnder is the only entry candidate inside a given source root (its clusters/<name> or
// flux/cluster directory), else the root itself.
func (l *Layout) entryUnder(f gitrev.Files, top string) error {
	cs := entryCandidates(f, l.Dir(top))
	switch len(cs) {
	case 0:
		l.Entry, l.EntryHow = ".", "the source root (no clusters/ directory)"
	case 1:
		l.Entry, l.EntryHow = cs[0].entry, cs[0].entryHow
		if cs[0].clusters {
			l.EntryHow = "the only directory under " + path.Dir(l.Entry) + "/"
		}
	default:
		return fmt.Errorf("several directories under --source-root %s could be the entry path (%s): choose one with --path", l.SourceRoot, entryNames(cs))
	}
	return nil
}

// checkDeclared refuses an entry given relative to a detected source root below the top level
// when the Kustomizations it declares name their paths from the top level instead (flux
// bootstrap --path=./k8s/clusters/prod, given as --path clusters/prod): building from that
// root would miss every one of them, and reading the flag another way would be a guess.
func (l *Layout) checkDeclared(f gitrev.Files, top string) error {
	entry := path.Join(l.SourceRoot, l.Entry)
	paths := declaredPaths(f, filepath.Join(top, filepath.FromSlash(entry)))
	if len(paths) == 0 || pathsUnder(f, top, l.SourceRoot, paths) || !pathsUnder(f, top, ".", paths) {
		return nil
	}
	return fmt.Errorf("the Kustomizations in %s name their paths from the repository's top level (./%s), not from %s/: give --path %s", entry, paths[0], l.SourceRoot, entry)
}
