package sourceroot

import (
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
// bootstrap syncs first and no Kustomization builds. Files are read as written (peekYAML).
func unbuiltDeclarers(top string) []string {
	declaring := map[string]bool{}
	var declared []string
	peekYAML(top, maxDeclarerFiles, maxRootDepth, func(rel string, paths []string) {
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
