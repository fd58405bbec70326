package gitops

import "github.com/kubeforensics/suite/internal/kbuild"

// PrimarySource is the source a repository is: that of the Kustomization whose path is the
// entry when the repository has one, else the one most Kustomizations use (ties by name). When
// exists is given (whether a path is a directory of the repository) and no Kustomization of
// that source names a path the repository has, while some of another source do, the most used
// of those is taken instead: a repository whose entry holds no root Kustomization (the
// bootstrap made it) and whose tenants' Kustomizations outnumber its own
// (terotuomala/gitops-flux2-example: infrastructure from flux-system, api and client from their
// own GitRepositories, the tie going to api by name) is still the source of ./infrastructure.
// A path "." says nothing: every repository has one.
func PrimarySource(kss []kbuild.Kustomization, entry string, exists func(path string) bool) string {
	count, found := map[string]int{}, map[string]int{}
	for _, ks := range kss {
		if ks.Path == entry && entry != "" {
			return ks.Source()
		}
		count[ks.Source()]++
		if exists != nil && ks.Path != "." && ks.Path != "" && exists(ks.Path) {
			found[ks.Source()]++
		}
	}
	best := mostUsed(count)
	if found[best] == 0 && len(found) > 0 {
		best = mostUsed(found)
	}
	return best
}

// mostUsed is the source with the highest count, ties by name.
func mostUsed(count map[string]int) string {
	best := ""
	for src, n := range count {
		if n > count[best] || (n == count[best] && src < best) {
			best = src
		}
	}
	return best
}
