package gitops

import (
	"bytes"
	"context"
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// FillSkippedNaming builds, at the base, the tiers LoadPair left unbuilt whose objects may read
// by name one of names (the ConfigMaps, Secrets and Flux sources the candidate changes in the
// tiers it built), and gives the candidate's the same output; it returns their ids, sorted.
//
// A tier is left unbuilt only when its files declare no Flux object the walk reads, but they may
// declare HelmReleases, which read ConfigMaps and Secrets (spec.valuesFrom) and chart sources
// (spec.chart.spec.sourceRef, spec.chartRef) by name, wherever they are declared: such a
// release changes with them, and helm-controller upgrades it. A tier is built when its files
// may declare a HelmRelease and may name one of names: they spell it out, a variable or a
// transformation may supply it, or they could not be read. Which names a built tier's
// objects read is then known exactly (helmjudge compares each release's inputs).
func FillSkippedNaming(ctx context.Context, base, cand *Tree, names []string) []string {
	if len(names) == 0 {
		return nil
	}
	s := newStaticReader(base.Root, linksOf(base.opts))
	s.files = base.FS
	return fillSkipped(ctx, base, cand, func(t *Tier) bool { return s.mayName(t.Kustomization, names) })
}

// fillSkipped builds, at the base, the tiers LoadPair left unbuilt that want says to, gives the
// candidate's the same output (its inputs are the base's), and returns their ids, sorted.
func fillSkipped(ctx context.Context, base, cand *Tree, want func(*Tier) bool) []string {
	var todo []*Tier
	var ids []string
	for _, id := range base.IDs() {
		if bt := base.Tiers[id]; bt.NotBuilt() && want(bt) {
			todo = append(todo, bt)
			ids = append(ids, id)
		}
	}
	base.buildNow(ctx, todo)
	for _, id := range ids {
		if ct := cand.Tiers[id]; ct != nil && ct.NotBuilt() {
			in := *ct.Inputs
			in.skipped = false
			ct.Inputs = &in
			copyOutput(ct, base.Tiers[id], nil)
		}
	}
	return ids
}

// nameMarkers are texts after which a kustomization's or an object's names are not those its
// files spell out: a variable, a renaming or a transformation (staticReads.anyName says more).
var nameMarkers = [][]byte{[]byte("${"), []byte("namePrefix"), []byte("nameSuffix"), []byte("configurations"),
	[]byte("transformers"), []byte("replacements"), []byte("vars")}

// mayName reports whether the tier built from ks may declare a HelmRelease that names one of
// names: see FillSkippedNaming. Unsure is yes.
func (s *staticReader) mayName(ks kbuild.Kustomization, names []string) bool {
	in := s.tier(ks)
	if in.mustBuild != "" || in.anyName {
		return true
	}
	helm, named := false, false
	for _, f := range in.files {
		if s.links.Through(f) {
			return true
		}
		data, err := s.files.ReadFile(s.abs(f))
		if err == nil {
			err = kbuild.CheckLoad(f, data)
		}
		if err != nil {
			return true
		}
		helm = helm || bytes.Contains(data, []byte("helm.toolkit.fluxcd.io"))
		for _, m := range nameMarkers {
			named = named || bytes.Contains(data, m)
		}
		for _, n := range names {
			named = named || bytes.Contains(data, []byte(n))
		}
		if helm && named {
			return true
		}
	}
	return false
}

// ChangedChartDirs are the chart directories (holding a Chart.yaml at base or candidate,
// relative to the source root) in which the candidate changes a file, sorted: a HelmRelease
// whose chart is such a directory of the repository (spec.chart.spec.chart a path, or a
// HelmChart's) renders another chart, and helm-controller upgrades it, although no object
// it reads by name changed. FillSkippedNaming takes them as names: a tier whose files may
// declare a HelmRelease and spell the directory out is built and its releases compared.
func ChangedChartDirs(base, cand *Tree, changes *gitrev.Changes) []string {
	if base == nil || cand == nil || changes == nil {
		return nil
	}
	dirs := map[string]bool{}
	for _, p := range changes.Paths {
		for d := path.Dir(filepath.ToSlash(p)); d != "." && d != "/" && d != ""; d = path.Dir(d) {
			if dirs[d] {
				break
			}
			if hasChart(base, d) || hasChart(cand, d) {
				dirs[d] = true
				break
			}
		}
	}
	return slices.Sorted(maps.Keys(dirs))
}

// hasChart says whether dir (relative to t's root) holds a Chart.yaml.
func hasChart(t *Tree, dir string) bool {
	fi, err := t.FS.Stat(filepath.Join(t.Root, filepath.FromSlash(dir), "Chart.yaml"))
	return err == nil && !fi.IsDir()
}
