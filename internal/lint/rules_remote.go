package lint

import (
	"io/fs"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
)

var ruleRemoteBase = Rule{
	ID: "remote-base", Severity: Warning,
	Why:   "kustomize-controller fetches remote bases and resources within its fetch timeout on every reconcile; a slow or unreachable remote fails the tier (BuildFailed) for reasons outside the repository",
	Fix:   "vendor the remote base or resource into the repository and refer to it by relative path",
	check: checkRemoteBase,
}

// checkRemoteBase reports the remote entries that kept a tier from building offline, at the
// kustomization file that names them (found by reading the kustomization files of the
// repository as text). With --allow-network the build fetches them and this rule is silent.
func checkRemoteBase(r *Repo, rule Rule, _ Settings) []Finding {
	var out []Finding
	for _, t := range append([]*Tier{r.EntryBuild}, r.IDsTiers()...) {
		for _, u := range t.RemoteURLs {
			file, line := r.findInKustomizations(u)
			id := t.ID()
			if t.Kustomization.Name == "" {
				id = ""
			}
			out = append(out, rule.finding(id, "", file, line, "%s pulls %s", pathOf(t), u))
		}
	}
	return out
}

// IDsTiers returns the tiers in id order.
func (r *Repo) IDsTiers() []*Tier {
	out := make([]*Tier, 0, len(r.Tiers))
	for _, id := range r.IDs() {
		out = append(out, r.Tiers[id])
	}
	return out
}

func pathOf(t *Tier) string {
	if t.Kustomization.Name == "" {
		return "entry path " + t.Kustomization.Path
	}
	return "Kustomization " + t.ID() + " (path " + t.Kustomization.Path + ")"
}

// findInKustomizations returns the first kustomization file of the repository, and the line,
// that mentions text.
func (r *Repo) findInKustomizations(text string) (string, int) {
	names := map[string]bool{}
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		names[n] = true
	}
	var file string
	var line int
	_ = filepath.WalkDir(r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || file != "" {
			return filepath.SkipDir
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != r.Root {
			return filepath.SkipDir
		}
		if d.IsDir() || !names[d.Name()] {
			return nil
		}
		rel, _ := filepath.Rel(r.Root, p)
		if l := r.LocateText(filepath.ToSlash(rel), text); l > 0 {
			file, line = filepath.ToSlash(rel), l
		}
		return nil
	})
	return file, line
}
