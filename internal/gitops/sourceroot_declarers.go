package gitops

import (
	"io/fs"
	"os"
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
func hasKustomizationFile(dir string) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// unbuiltDeclarers lists, sorted, the directories of the tree at top (not hidden, at most
// maxRootDepth deep) whose own YAML files declare a Flux Kustomization with a spec.path, and
// that lie under no spec.path declared anywhere in the tree (read from the top level): what a
// bootstrap syncs first and no Kustomization builds. Files are read as written, at most
// maxPeekSize bytes each, aliases never followed (kustomizationPaths).
func unbuiltDeclarers(top string) []string {
	declaring := map[string]bool{}
	var declared []string
	files := 0
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(top, p)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil:
			return nil
		case d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, "/") > maxRootDepth):
			return filepath.SkipDir
		case !d.Type().IsRegular() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml"):
			return nil
		case files >= maxDeclarerFiles:
			return filepath.SkipAll
		}
		files++
		if fi, err := d.Info(); err != nil || fi.Size() > maxPeekSize {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		if paths := kustomizationPaths(data); len(paths) > 0 {
			declaring[path.Dir(rel)] = true
			declared = append(declared, paths...)
		}
		return nil
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
