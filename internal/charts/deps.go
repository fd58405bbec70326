package charts

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	securejoin "github.com/cyphar/filepath-securejoin"
	"github.com/kubeforensics/suite/internal/gitrev"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"sigs.k8s.io/yaml"
)

// Local dependencies of a chart directory, built as source-controller's dependency manager
// builds them (fluxcd/source-controller internal/helm/chart/dependency_manager.go: Build,
// collectMissing, addLocalDependency, secureLocalChartPath).
//
// A dependency is local when its repository is `file://<path>` or empty. When the chart's
// charts/ does not hold it, its path is taken from the chart's directory and joined to the
// source's root with securejoin: a path that climbs out of the root is clamped inside it, so
// no file outside the repository's snapshot is ever read. The chart found there is loaded
// (symbolic links refused, as for the chart itself), its version must satisfy the
// dependency's constraint, and it is added to the chart. No chart at that path fails the
// build, as source-controller's does: the release is then UNKNOWN, never judged from part of
// its chart. A dependency's own local dependencies are not built (source-controller builds
// one level); one its charts/ lacks refuses the chart.

// localDep is one local dependency the chart's charts/ does not hold.
type localDep struct {
	dep  *chart.Dependency
	name string // the alias, else the name
}

// missingLocal lists the local dependencies of c (Chart.lock's when it has one, as
// source-controller takes them) that its charts/ does not hold.
func missingLocal(c *chart.Chart) []localDep {
	reqs := c.Metadata.Dependencies
	if c.Lock != nil {
		reqs = c.Lock.Dependencies
	}
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	var out []localDep
	for _, dep := range reqs {
		if dep == nil || !isLocal(dep.Repository) {
			continue
		}
		name := dep.Name
		if dep.Alias != "" {
			name = dep.Alias
		}
		if !have[name] && !have[dep.Name] {
			out = append(out, localDep{dep: dep, name: name})
		}
	}
	return out
}

func isLocal(repository string) bool {
	return repository == "" || strings.HasPrefix(repository, "file://")
}

// localPath is where a local dependency's chart is in the snapshot: its path from the chart's
// directory, joined to the source's root with securejoin (secureLocalChartPath).
func localPath(ref Ref, dep *chart.Dependency) (string, error) {
	u, err := url.Parse(dep.Repository)
	if err != nil {
		return "", fmt.Errorf("dependency %q: repository %q is not a path: %w", dep.Name, dep.Repository, err)
	}
	root := ref.Root
	if root == "" {
		root = ref.Dir // no source root known: the chart's own directory bounds what is read
	}
	rel, err := filepath.Rel(root, ref.Dir)
	if err != nil {
		return "", fmt.Errorf("dependency %q: %w", dep.Name, err)
	}
	return securejoin.SecureJoin(root, filepath.Join(rel, u.Host, u.Path))
}

// addLocalDependencies builds the local dependencies of c that its charts/ does not hold into
// c, or fails naming the one that cannot be built.
func addLocalDependencies(ref Ref, files gitrev.Files, c *chart.Chart) error {
	for _, m := range missingLocal(c) {
		p, err := localPath(ref, m.dep)
		if err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		if p == ref.Dir {
			return fmt.Errorf("%s: dependency %q (repository %q) is not in the chart's charts/ and its path is the chart's own directory, so it is not rendered", ref, m.dep.Name, m.dep.Repository)
		}
		if fi, err := files.Stat(p); err != nil || !fi.IsDir() {
			return fmt.Errorf("%s: dependency %q (repository %q): no chart at %s in this revision, so source-controller fails to build the chart and this tool does not render it", ref, m.dep.Name, m.dep.Repository, relTo(ref, p))
		}
		if err := refuseLinks(files, p); err != nil {
			return fmt.Errorf("%s: dependency %q: %w", ref, m.dep.Name, err)
		}
		sub, err := loadChartDir(files, p)
		if err != nil {
			return fmt.Errorf("%s: dependency %q at %s: %w", ref, m.dep.Name, relTo(ref, p), err)
		}
		if err := versionFits(m.dep, sub); err != nil {
			return fmt.Errorf("%s: %w", ref, err)
		}
		if rest := missingLocal(sub); len(rest) > 0 {
			return fmt.Errorf("%s: dependency %q at %s has a local dependency %q its charts/ does not hold; source-controller builds one level of local dependencies, so the chart is not rendered", ref, m.dep.Name, relTo(ref, p), rest[0].dep.Name)
		}
		c.AddDependency(sub)
	}
	return nil
}

// versionFits checks the loaded chart against the dependency's version constraint, as
// addLocalDependency does.
func versionFits(dep *chart.Dependency, sub *chart.Chart) error {
	// An empty constraint is invalid to source-controller too.
	constraint, err := semver.NewConstraint(dep.Version)
	if err != nil {
		return fmt.Errorf("dependency %q: version constraint %q: %w", dep.Name, dep.Version, err)
	}
	ver, err := semver.NewVersion(sub.Metadata.Version)
	if err != nil {
		return fmt.Errorf("dependency %q: version %q of the chart at its path: %w", dep.Name, sub.Metadata.Version, err)
	}
	if !constraint.Check(ver) {
		return fmt.Errorf("dependency %q: the chart at its path is version %s, which %q does not allow", dep.Name, ver, dep.Version)
	}
	return nil
}

// relTo names p from the source's root, for a reader.
func relTo(ref Ref, p string) string {
	root := ref.Root
	if root == "" {
		root = ref.Dir
	}
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// localDependencyDirs are the directories of the chart directory's local dependencies that
// its charts/ does not hold, read from its Chart.lock or Chart.yaml alone, so a change to one
// of them changes the chart's digest. Unreadable metadata yields none: loading the chart then
// fails and says why.
func localDependencyDirs(files gitrev.Files, ref Ref) []string {
	meta := struct {
		Dependencies []*chart.Dependency `json:"dependencies"`
	}{}
	for _, name := range []string{"Chart.lock", "Chart.yaml"} {
		data, err := files.ReadFile(filepath.Join(ref.Dir, name))
		if err != nil {
			continue
		}
		if yaml.Unmarshal(data, &meta) == nil {
			break
		}
	}
	var out []string
	for _, dep := range meta.Dependencies {
		if dep == nil || !isLocal(dep.Repository) {
			continue
		}
		if p, err := localPath(ref, dep); err == nil && p != ref.Dir && !strings.HasPrefix(p, ref.Dir+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	return out
}

// ChartDirDigest digests a chart directory and the local dependencies built into it from
// outside it (DirDigest of each), so a change to either is seen.
func ChartDirDigest(ref Ref) string {
	return ChartDirDigestIn(gitrev.Disk(cmp.Or(ref.Root, ref.Dir)), ref, nil)
}

// ChartDirDigestIn is ChartDirDigest read from files; dirDigest digests one directory (nil:
// DirDigestIn), so a caller can digest each directory once per revision.
func ChartDirDigestIn(files gitrev.Files, ref Ref, dirDigest func(dir string) string) string {
	if dirDigest == nil {
		dirDigest = func(dir string) string { return DirDigestIn(files, dir) }
	}
	dirs := localDependencyDirs(files, ref)
	if len(dirs) == 0 {
		return dirDigest(ref.Dir)
	}
	h := sha256.New()
	io.WriteString(h, dirDigest(ref.Dir))
	for _, d := range dirs {
		fmt.Fprintf(h, "\x00%s\x00%s", relTo(ref, d), dirDigest(d))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
