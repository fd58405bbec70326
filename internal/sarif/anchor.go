package sarif

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/sourceroot"
	"github.com/kubeforensics/suite/internal/version"
)

// The rules of what a run could not judge, shared by the plugins: each gap is a result of its
// own (warning, or note when it does not make the verdict UNKNOWN), never left out.
var (
	TierNotBuilt = Rule{ID: "tier-not-built", Level: Warning,
		Summary: "A Kustomization's path did not build, so what it applies or removes was not judged: the verdict cannot be SAFE or CLEAN.",
		Help:    "Fix the build, or vendor the remote bases and resources it fetches (--allow-network fetches them)."}
	TierNotCovered = Rule{ID: "tier-not-covered", Level: Warning,
		Summary: "A Kustomization is built from another source than this repository, so it was not judged here.",
		Help:    "Run the gate on the repository that source points at."}
	ObjectUndecoded = Rule{ID: "object-undecoded", Level: Warning,
		Summary: "A Flux object's spec did not decode, so what depends on it was not judged.",
		Help:    "Fix the object's spec (a field of the wrong type, a timeout that is no duration)."}
)

// kustomizationFiles are the names kustomize reads a directory's kustomization from.
var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Anchor is a file to place a result at that has no file of its own: the kustomization file of
// the first of dirs (relative to the repository's top level top) that has one, else the first
// YAML file in the first dir, else the first dir itself. Only names are read.
func Anchor(top string, dirs ...string) string {
	for _, d := range dirs {
		if f := KustomizationFile(top, d); f != "" {
			return f
		}
	}
	if len(dirs) == 0 {
		return "."
	}
	first := clean(dirs[0])
	entries, err := os.ReadDir(filepath.Join(top, filepath.FromSlash(first)))
	if err == nil {
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		if len(names) > 0 {
			return path.Join(first, names[0])
		}
	}
	return first
}

// KustomizationFile is dir's kustomization file relative to top, "" when it has none.
func KustomizationFile(top, dir string) string {
	d := clean(dir)
	for _, name := range kustomizationFiles {
		p := path.Join(d, name)
		if st, err := os.Lstat(filepath.Join(top, filepath.FromSlash(p))); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// clean is a repository-relative path without ./ or a leading slash, "." for the top level;
// a path that climbs out of the repository is the top level.
func clean(p string) string {
	p = path.Clean("/" + filepath.ToSlash(p))
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

// Homepage is the project's page, which the logs name as the tool's information URI.
const Homepage = "https://github.com/kubeforensics/suite"

// DocsURI is the page documenting tool (docs/<tool>.md), the informationUri of its runs and
// the helpUri of rules without one of their own.
func DocsURI(tool string) string { return Homepage + "/blob/main/docs/" + tool + ".md" }

// ForRepository starts the run of tool over the repository at top: l is its layout (nil: the
// top level is the source root) and entry the entry path judged, relative to the source root.
// The run gets the category of that tool and entry path and its anchor; the caller adds the
// rules, findings and verdict. The layout returned is l or the default, by which the caller
// places its files from the top level.
func ForRepository(tool, top string, l *sourceroot.Layout, entry string) (Report, sourceroot.Layout) {
	layout := sourceroot.Layout{SourceRoot: "."}
	if l != nil {
		layout = *l
	}
	dir := layout.FromTop(entry)
	if dir == "" {
		dir = layout.FromTop(".")
	}
	return Report{Tool: tool, Version: version.Get().Version, Category: "kubeforensics/" + tool + "/" + dir,
		InformationURI: DocsURI(tool), Anchor: Anchor(top, dir)}, layout
}
