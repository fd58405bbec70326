// Package sourceroot settles, before anything is built, where a repository's Flux source
// starts (the directory Kustomization spec.paths are relative to, e.g. an OCI artifact pushed
// from k8s/) and which path is the entry built first. It reads kustomization files as text,
// bounded, and never builds.
package sourceroot

import (
	"fmt"
	"github.com/kubeforensics/suite/internal/gitrev"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// Layout says where a repository's Flux source starts and which path a run builds first.
type Layout struct {
	// SourceRoot is the directory, relative to the repository's top level ("." for the top),
	// that Kustomization spec.paths are relative to: the artifact root when the repository is
	// pushed as an OCI artifact from a subdirectory.
	SourceRoot string `json:"sourceRoot"`
	// SourceRootHow says how SourceRoot was chosen.
	SourceRootHow string `json:"sourceRootHow"`
	// Entry is the path built first, relative to SourceRoot ("" when the caller has its
	// Kustomizations from elsewhere, e.g. a cluster).
	Entry string `json:"entry,omitempty"`
	// EntryHow says how Entry was chosen.
	EntryHow string `json:"entryHow,omitempty"`
}

// Dir is the source root inside the checkout or snapshot at top.
func (l Layout) Dir(top string) string {
	return filepath.Join(top, filepath.FromSlash(l.SourceRoot))
}

// FromTop turns a file a build names (relative to the source root) into the path from the
// repository's top level, where GitHub annotations and editors look for it; "" stays "".
func (l Layout) FromTop(file string) string {
	if file == "" {
		return ""
	}
	return cleanPath(path.Join(l.SourceRoot, file))
}

// maxRootDepth bounds how deep below the top level a source root is looked for.
const maxRootDepth = 4

// Detect settles the source root and entry path in the tree at top, offline and live
// alike. sourceRoot and entry are the flags as given ("" when not given).
//
// Live, paths are the spec.paths of the Kustomizations read from a cluster whose source is the
// repository: the source root is the directory under which every one of them exists, else the
// top level (the caller names the Kustomization whose path is missing), and entry only names
// the root Kustomization's path. Offline (no paths), the source root is the one under which the
// entry exists. With no entry either, the entry is the repository's only bootstrap directory,
// clusters/<name> (at any depth) or flux/cluster (kubernetes/flux/cluster, setup/flux/cluster),
// and the source root is the directory under which the spec.paths its Kustomizations declare
// exist: the top level for ./k8s/apps, k8s/ for ./apps (an artifact pushed from k8s/), else
// where the layout puts it. The top level wins when it qualifies; a choice between several
// other directories, or between several entries, is refused, naming them.
func Detect(top, sourceRoot, entry string, paths []string) (Layout, error) {
	return DetectFiles(gitrev.Disk(top), sourceRoot, entry, paths)
}

// DetectFiles is Detect over files, whose Root is the top level: a revision read from
// git's objects is read without being written out.
func DetectFiles(f gitrev.Files, sourceRoot, entry string, paths []string) (Layout, error) {
	top := f.Root()
	live := len(paths) > 0
	var l Layout
	if entry != "" {
		l.Entry, l.EntryHow = cleanPath(entry), "given with --path"
		if live {
			l.EntryHow += ": its Kustomization's source is the repository's"
		}
	}
	if sourceRoot != "" {
		rel := cleanPath(sourceRoot)
		if !isDir(f, filepath.Join(top, filepath.FromSlash(rel))) {
			return l, fmt.Errorf("--source-root %s is not a directory of the repository", rel)
		}
		l.SourceRoot, l.SourceRootHow = rel, "given with --source-root"
		switch {
		case live:
		case l.Entry == "":
			return l, l.entryUnder(f, top)
		case !isDir(f, filepath.Join(l.Dir(top), filepath.FromSlash(l.Entry))):
			return l, fmt.Errorf("the entry path %s is not a directory under --source-root %s", l.Entry, rel)
		}
		return l, nil
	}
	want, what := paths, "every Kustomization's spec.path"
	if !live {
		if l.Entry == "" {
			return l, l.chooseEntry(f, top)
		}
		want, what = []string{l.Entry}, "the entry path "+l.Entry
	}
	roots := candidateRoots(f, top, func(dir string) bool {
		for _, p := range want {
			if !isDir(f, filepath.Join(dir, filepath.FromSlash(cleanPath(p)))) {
				return false
			}
		}
		return true
	})
	switch {
	case len(roots) == 0 && live:
		l.SourceRoot, l.SourceRootHow = ".", "the repository's top level (no directory holds every spec.path)"
	case len(roots) == 0:
		return l, fmt.Errorf("%s is not a directory of the repository, nor of any directory in it: give the artifact's root with --source-root", what)
	case roots[0] == "." && !live:
		l.fromTop(f, top, what)
	case roots[0] == ".":
		l.SourceRoot, l.SourceRootHow = ".", "the repository's top level: "+what+" is there"
	case len(roots) == 1 && !live:
		l.SourceRoot, l.SourceRootHow = roots[0], "detected: "+what+" resolves only under "+roots[0]+"/"
		return l, l.checkDeclared(f, top)
	case len(roots) == 1:
		l.SourceRoot, l.SourceRootHow = roots[0], "detected: "+what+" resolves only under "+roots[0]+"/"
	default:
		return l, fmt.Errorf("%s resolves under several directories (%s): choose the artifact's root with --source-root", what, strings.Join(roots, ", "))
	}
	return l, nil
}

// fromTop settles the source root of an entry given from the top level. The Kustomizations it
// declares name their paths from a directory on its way up, as a bootstrap's do (the monorepo
// layout of aws-samples/eks-multi-cluster-gitops: repos/gitops-system/clusters/mgmt declares
// ./clusters/mgmt and ./tools/crossplane, paths from repos/gitops-system, pushed as a
// repository of its own): that directory is the source root and the entry is given from it,
// as when the entry is detected (candidateAt). Else the top level.
func (l *Layout) fromTop(f gitrev.Files, top, what string) {
	c := candidateAt(f, top, l.Entry, ".", "")
	if c.root == "." || c.confirmed || c.how == "" || !strings.HasPrefix(l.Entry+"/", c.root+"/") {
		l.SourceRoot, l.SourceRootHow = ".", "the repository's top level: "+what+" is there"
		return
	}
	l.SourceRoot, l.SourceRootHow = c.root, "detected: "+c.root+"/: "+c.how
	l.Entry = orDefault(strings.TrimPrefix(strings.TrimPrefix(l.Entry, c.root), "/"), ".")
	l.EntryHow = "given with --path, from the top level"
}

// candidateRoots lists ".", then every directory below top (not hidden, at most maxRootDepth
// deep) for which ok holds, as slash paths relative to top in walk order ("." first).
func candidateRoots(f gitrev.Files, top string, ok func(dir string) bool) []string {
	var out []string
	_ = gitrev.WalkDir(f, top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, "/") >= maxRootDepth) {
			return filepath.SkipDir
		}
		if ok(p) {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func isDir(f gitrev.Files, p string) bool {
	fi, err := f.Stat(p)
	return err == nil && fi.IsDir()
}

// cleanPath makes p relative to the source root the way kbuild.CleanPath cleans a spec.path:
// never above the root, "." for the root itself.
func cleanPath(p string) string {
	if c := strings.TrimPrefix(path.Clean("/"+p), "/"); c != "" {
		return c
	}
	return "."
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
