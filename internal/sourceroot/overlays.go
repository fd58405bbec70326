package sourceroot

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubeforensics/suite/internal/gitrev"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/yaml"
)

// builtDirs lists the directories, relative to the top, that the kustomization file of rel (a
// directory relative to the top) names as resources, bases or components: what an overlay
// builds. Files, remote URLs and paths leaving the top are not directories of the tree and are
// left out; a kustomization file that does not parse names nothing.
func builtDirs(f gitrev.Files, top, rel string) []string {
	var out []string
	for _, p := range namedPaths(f, top, rel) {
		if isDir(f, filepath.Join(top, filepath.FromSlash(p))) {
			out = append(out, p)
		}
	}
	return out
}

// namedPaths lists the local paths, relative to the top, that the kustomization file of rel
// names as resources, bases or components, files and directories alike; a path leaving the
// top and a remote URL are left out (neither is a path of the tree).
func namedPaths(f gitrev.Files, top, rel string) []string {
	var data []byte
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if b, err := f.ReadFile(filepath.Join(top, filepath.FromSlash(rel), name)); err == nil {
			data = b
			break
		}
	}
	if data == nil {
		return nil
	}
	var k struct {
		Resources  []string `json:"resources"`
		Bases      []string `json:"bases"`
		Components []string `json:"components"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return nil
	}
	var out []string
	for _, list := range [][]string{k.Resources, k.Bases, k.Components} {
		for _, r := range list {
			if strings.Contains(r, "://") || strings.HasPrefix(r, "github.com/") {
				continue
			}
			p := path.Clean(path.Join(rel, r))
			if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(r) {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// dropBases leaves out of cs the clusters/<name> candidates that another candidate's
// kustomization file builds: a clusters/base that clusters/prod and clusters/local build as
// overlays (devantler-tech/platform, whose overlays set each cluster's paths with replacements)
// is not synced by any cluster itself, and building it alone yields paths no cluster uses. An
// overlay that builds a base declaring Flux Kustomizations declares them too.
func dropBases(f gitrev.Files, top string, cs []entryCandidate) []entryCandidate {
	byEntry := map[string]int{}
	for i, c := range cs {
		byEntry[c.entry] = i
	}
	base := map[string]bool{}
	declares := map[string]bool{}
	for _, c := range cs {
		if !c.clusters {
			continue
		}
		for _, d := range builtDirs(f, top, c.entry) {
			if i, ok := byEntry[d]; ok && d != c.entry && cs[i].clusters {
				base[d] = true
				if cs[i].declares {
					declares[c.entry] = true
				}
			}
		}
	}
	if len(base) == 0 {
		return cs
	}
	var out []entryCandidate
	for _, c := range cs {
		if base[c.entry] {
			continue
		}
		if declares[c.entry] {
			c.declares = true
		}
		out = append(out, c)
	}
	return out
}

// builtByCandidate reports whether the kustomization file of one of the candidates cs builds
// dir: a base of theirs, not another entry.
func builtByCandidate(f gitrev.Files, top string, cs []entryCandidate, dir string) bool {
	for _, c := range cs {
		for _, d := range builtDirs(f, top, c.entry) {
			if d == dir {
				return true
			}
		}
	}
	return false
}

// dropGroupings leaves out of cs the clusters/<name> candidates that hold another candidate
// below them and that no Kustomization declared in the tree builds (its spec.path is not
// theirs): a directory grouping clusters (JiwooL0920/fleet-infra's clusters/stages, which holds
// dev/clusters/services-amer, the directory flux bootstrap syncs), not an entry. One that a
// Kustomization builds stays, and is refused beside the other as before.
func dropGroupings(f gitrev.Files, top string, cs []entryCandidate) []entryCandidate {
	var groupings []string
	for _, c := range cs {
		if c.clusters && slices.ContainsFunc(cs, func(o entryCandidate) bool { return strings.HasPrefix(o.entry, c.entry+"/") }) {
			groupings = append(groupings, c.entry)
		}
	}
	if len(groupings) == 0 {
		return cs
	}
	built := map[string]bool{}
	peekYAML(f, top, maxDeclarerFiles, maxRootDepth, func(_ string, ds []declaration) {
		for _, d := range ds {
			built[d.path] = true
		}
	})
	var out []entryCandidate
	for _, c := range cs {
		if !slices.Contains(groupings, c.entry) || built[c.entry] {
			out = append(out, c)
		}
	}
	return out
}
