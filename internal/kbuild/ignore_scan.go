package kbuild

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/provider"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/gitrev"
)

// errNotInArtifact means a file the build needs is on disk but not in the artifact
// source-controller makes of the tree.
var errNotInArtifact = errors.New("left out of the source's artifact by its ignore rules")

// generateManifest is kustomize-controller's generator run over dir: the path's own
// kustomization file with the Kustomization's spec written into it, or, for a directory without
// one, a kustomization listing the files the controller's generator would list in the artifact.
//
// The generator lists a plain directory by walking the disk, where files the artifact leaves
// out (.github/labels.yaml and the like) fail its decoding. So for a plain directory its own
// listing is switched off (an ignore rule matching everything) and the listing made here, the
// same way over the artifact's files (listGenerated), is put in its place.
func generateManifest(fs filesys.FileSystem, root, dir string, obj *unstructured.Unstructured, ign *sourceIgnore, files gitrev.Files) ([]byte, string, error) {
	if hasKustomization(fs, dir) {
		if err := ign.load(); err != nil {
			return nil, "", err
		}
		for _, name := range konfig.RecognizedKustomizationFileNames() {
			if p := filepath.Join(dir, name); fs.Exists(p) && ign.excluded(p, false) {
				return nil, "", fmt.Errorf("%s: %w: the controller would generate one in its place", ign.rel(p), errNotInArtifact)
			}
		}
		return runGenerator(files, root, dir, obj, "")
	}
	resources, err := listGenerated(fs, dir, ign)
	if err != nil {
		return nil, "", err
	}
	manifest, kfile, err := runGenerator(files, root, dir, obj, "*")
	if err != nil {
		return nil, "", err
	}
	var k kustypes.Kustomization
	if err := yaml.Unmarshal(manifest, &k); err != nil {
		return nil, "", err
	}
	if len(resources) > 0 {
		k.Resources = resources
		if tns, _, _ := unstructured.NestedString(obj.Object, "spec", "targetNamespace"); tns == "" {
			k.Namespace = "" // the generator's placeholder for an empty listing
		}
	}
	out, err := yaml.Marshal(k)
	return out, kfile, err
}

// listGenerated lists what kustomize-controller's generator lists for dir, a directory without
// a kustomization file, in the artifact: every .yaml and .yml file below it, and every
// subdirectory that holds a kustomization file (not walked further), in walk order, as "./"
// paths relative to dir. Files the artifact leaves out are not listed, and a kustomization file
// it leaves out does not count. Every listed file is read through fs (bounded) and must decode
// as Kubernetes YAML, as the generator requires.
func listGenerated(fs filesys.FileSystem, dir string, ign *sourceIgnore) ([]string, error) {
	if err := ign.load(); err != nil {
		return nil, err
	}
	base := filepath.Clean(mustAbs(dir))
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	var out []string
	err := fs.Walk(base, func(p string, info os.FileInfo, err error) error {
		switch {
		case err != nil:
			return err
		case p == base:
			return nil
		case info.IsDir() && info.Name() == ".git":
			return filepath.SkipDir // never in an artifact
		case info.IsDir():
			if keptKustomization(fs, p, ign) {
				out = append(out, "."+strings.TrimPrefix(p, base))
				return filepath.SkipDir
			}
			return nil
		case filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml", ign.excluded(p, false):
			return nil
		}
		data, err := fs.ReadFile(p)
		if err != nil {
			return err
		}
		if err := decodes(rf.SliceFromBytes, data); err != nil {
			return fmt.Errorf("failed to decode Kubernetes YAML from %s: %w", p, err)
		}
		out = append(out, "."+strings.TrimPrefix(p, base))
		return nil
	})
	return out, err
}

// keptKustomization reports whether dir holds a kustomization file the artifact keeps.
func keptKustomization(fs filesys.FileSystem, dir string, ign *sourceIgnore) bool {
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if p := filepath.Join(dir, name); fs.Exists(p) && !fs.IsDir(p) && !ign.excluded(p, false) {
			return true
		}
	}
	return false
}

// decodes runs the generator's decoding check, which may panic on odd input.
func decodes[T any](decode func([]byte) (T, error), data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from panic while parsing YAML: %v", r)
		}
	}()
	_, err = decode(data)
	return err
}

// record adds to reads what the ignore rules rest on for a build of dir: every .sourceignore
// read, and the absence of one in dir and each directory above it up to the root (one added
// there could leave out a file the build lists). A .sourceignore added elsewhere is scoped to
// its own directory; the only effect it can have on dir is switching the default rules off,
// which adds files and removes none.
func (s *sourceIgnore) record(reads *ReadLog, dir string) {
	root := filepath.Clean(mustAbs(s.root))
	if reads == nil || reads.root != root || s.load() != nil {
		return
	}
	for _, f := range s.files {
		reads.add(filepath.Join(s.root, filepath.FromSlash(f)))
	}
	for d := filepath.Clean(mustAbs(dir)); ; d = filepath.Dir(d) {
		reads.probe(filepath.Join(d, sourceignore.IgnoreFile))
		if d == root || filepath.Dir(d) == d || !strings.HasPrefix(d, root) {
			return
		}
	}
}
