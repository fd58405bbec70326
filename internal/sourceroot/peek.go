package sourceroot

import (
	"bytes"
	"github.com/kubeforensics/suite/internal/gitrev"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
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
// those that use ${VARS}. It reads at most maxPeekFiles files (peekYAML's bounds).
func declaredPaths(f gitrev.Files, dir string) []string {
	set := map[string]bool{}
	peekYAML(f, dir, maxPeekFiles, -1, func(_ string, ds []declaration) {
		for _, d := range ds {
			if d.path != "." {
				set[d.path] = true
			}
		}
	})
	return slices.Sorted(maps.Keys(set))
}

// peekYAML calls visit with the slash path (relative to dir) of each YAML file under dir that
// declares Flux Kustomizations with a spec.path, and what they declare (kustomizationDecls). Hidden
// directories are skipped, and those more than maxDepth levels down when maxDepth >= 0; at
// most maxFiles files are read, of at most maxPeekSize bytes each, and no YAML alias is ever
// expanded.
func peekYAML(f gitrev.Files, dir string, maxFiles, maxDepth int, visit func(rel string, ds []declaration)) {
	files := 0
	_ = gitrev.WalkDir(f, dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil:
			return nil
		case d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || maxDepth >= 0 && strings.Count(rel, "/") > maxDepth):
			return filepath.SkipDir
		case !d.Type().IsRegular() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml"):
			return nil
		case files >= maxFiles:
			return filepath.SkipAll
		}
		files++
		if fi, err := d.Info(); err != nil || fi.Size() > maxPeekSize {
			return nil
		}
		if data, err := f.ReadFile(p); err == nil {
			if ds := kustomizationDecls(data); len(ds) > 0 {
				visit(rel, ds)
			}
		}
		return nil
	})
}

// kustomizationPaths reads spec.path of each kustomize.toolkit.fluxcd.io Kustomization among
// the YAML documents of data whose source holds a repository's files as they are (a
// GitRepository, OCIRepository or Bucket; not an ExternalArtifact, whose paths are those of the
// artifact a generator makes). Paths of "." and those with ${VARS} say nothing about where the
// source starts. Aliases are never followed: only plain scalars count.
func kustomizationPaths(data []byte) []string {
	var out []string
	for _, d := range kustomizationDecls(data) {
		if d.path != "." {
			out = append(out, d.path)
		}
	}
	return out
}

// declaration is what one Flux Kustomization declares about the tree: its spec.path, cleaned
// ("." for the source's root), and its spec.components, resolved against that path as
// kustomize-controller resolves them (local ones only, none with ${VARS}).
type declaration struct {
	path       string
	components []string
	// source is its spec.sourceRef as kind/name.
	source string
}

// kustomizationDecls reads the declaration of each Flux Kustomization among the YAML documents
// of data whose source holds a repository's files as they are (kustomizationPaths), those
// whose path has ${VARS} left out.
func kustomizationDecls(data []byte) []declaration {
	var out []declaration
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
		p := cleanPath(scalarAt(spec, "path"))
		if strings.Contains(p, "${") {
			continue
		}
		d := declaration{path: p, source: scalarAt(fieldOf(spec, "sourceRef"), "kind") + "/" + scalarAt(fieldOf(spec, "sourceRef"), "name")}
		if list := fieldOf(spec, "components"); list != nil && list.Kind == yaml.SequenceNode {
			for _, c := range list.Content {
				if c.Kind != yaml.ScalarNode || strings.Contains(c.Value, "${") || strings.Contains(c.Value, "://") {
					continue
				}
				if rc := path.Clean(path.Join(p, c.Value)); rc != ".." && !strings.HasPrefix(rc, "../") {
					d.components = append(d.components, rc)
				}
			}
		}
		out = append(out, d)
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

// kustomizeGroup is the API group of Flux Kustomizations.
const kustomizeGroup = "kustomize.toolkit.fluxcd.io"
