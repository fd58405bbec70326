package gitops

import (
	"path/filepath"
	"sort"

	"github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/konfig"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// scanTree walks the kustomizations reachable from dir through resources, bases and
// components and returns the entries kustomize would fetch over the network (http(s) files
// and remote git bases, as the generator's IsLocalRelativePath tells them apart), and whether
// any of them declares its own OpenAPI schema (the `openapi` field).
//
// This check has to come before the build: kustomize fetches an http(s) resource with a
// plain HTTP client whatever file system it is given, so only not starting the build keeps
// an offline build offline. Files it cannot read or parse are skipped; the build reports them.
func scanTree(fs filesys.FileSystem, dir string) (remote []string, customSchema bool) {
	seen := map[string]bool{}
	urls := map[string]bool{}
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		k, ok := readKustomization(fs, d)
		if !ok {
			continue
		}
		customSchema = customSchema || len(k.OpenAPI) > 0
		for _, entries := range [][]string{k.Resources, k.Bases, k.Components} {
			for _, e := range entries {
				if !kustomize.IsLocalRelativePath(e) && !filepath.IsAbs(e) {
					urls[e] = true
					continue
				}
				if p := filepath.Join(d, e); fs.IsDir(p) {
					queue = append(queue, p)
				}
			}
		}
	}
	out := make([]string, 0, len(urls))
	for u := range urls {
		out = append(out, u)
	}
	sort.Strings(out)
	return out, customSchema
}

// readKustomization reads the kustomization file of dir, under any of the names kustomize
// recognises.
func readKustomization(fs filesys.FileSystem, dir string) (kustypes.Kustomization, bool) {
	var k kustypes.Kustomization
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if !fs.Exists(p) || fs.IsDir(p) {
			continue
		}
		data, err := fs.ReadFile(p)
		if err != nil {
			return k, false
		}
		return k, yaml.Unmarshal(data, &k) == nil
	}
	return k, false
}
