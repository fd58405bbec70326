package gitops

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	yaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Limits on what entry detection reads: it only peeks at files as written to choose a root.
const (
	maxPeekFiles = 200
	maxPeekSize  = 1 << 20
)

// declaredPaths reads the spec.paths of the Flux Kustomizations declared in the YAML files
// under dir, as written (no build: only to choose a source root), cleaned, sorted, without
// those that use ${VARS}. It reads at most maxPeekFiles files of at most maxPeekSize bytes,
// and never expands a YAML alias.
func declaredPaths(dir string) []string {
	set := map[string]bool{}
	files := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && p != dir && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case !d.Type().IsRegular() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml"):
			return nil
		case files >= maxPeekFiles:
			return filepath.SkipAll
		}
		files++
		if fi, err := d.Info(); err != nil || fi.Size() > maxPeekSize {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			for _, sp := range kustomizationPaths(data) {
				set[sp] = true
			}
		}
		return nil
	})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// kustomizationPaths reads spec.path of each kustomize.toolkit.fluxcd.io Kustomization among
// the YAML documents of data whose source holds a repository's files as they are (a
// GitRepository, OCIRepository or Bucket; not an ExternalArtifact, whose paths are those of the
// artifact a generator makes). Paths of "." and those with ${VARS} say nothing about where the
// source starts. Aliases are never followed: only plain scalars count.
func kustomizationPaths(data []byte) []string {
	var out []string
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return out
		}
		if len(doc.Content) != 1 {
			continue
		}
		m := doc.Content[0]
		if !strings.HasPrefix(scalarAt(m, "apiVersion"), kustomizeGroup+"/") || scalarAt(m, "kind") != "Kustomization" {
			continue
		}
		spec := fieldOf(m, "spec")
		switch scalarAt(fieldOf(spec, "sourceRef"), "kind") {
		case "GitRepository", "OCIRepository", "Bucket":
		default:
			continue
		}
		if p := CleanPath(scalarAt(spec, "path")); p != "." && !strings.Contains(p, "${") {
			out = append(out, p)
		}
	}
}

// fieldOf is the value of key in the mapping m, or nil.
func fieldOf(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalarAt(m *yaml.Node, key string) string {
	if v := fieldOf(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
