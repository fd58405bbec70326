package retire

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/sourceroot"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// built is both revisions built, the layout they were built with and what could not be.
// base and cand are nil when either side's Kustomizations could not be read: every tier of
// the other side would look deleted.
type built struct {
	base, cand *gitops.Tree
	layout     *sourceroot.Layout
	incomplete []report.Gap
	fullBuild  string
}

// offlineTrees walks each revision from the entry path (gitops.Load), so every Kustomization is
// found in build output with its rendered spec. Unless req.Full, only the tiers the change
// touches are built at both revisions, those the walk needs once, and the others at neither
// (gitops.LoadPair) until something is removed, when every tier's objects are needed
// (gitops.FillSkipped); with req.Full both are built whole, concurrently.
func offlineTrees(ctx context.Context, repo *gitrev.Repo, revs *gitrev.Revisions, req Request) (*built, error) {
	// Files are found afterwards, for the removed objects only (removalFiles).
	opts := gitops.LoadOptions{AllowNetwork: req.AllowNetwork, NoFiles: true, Cache: req.Cache}
	candFiles, err := revs.CandidateFiles()
	if err != nil {
		return nil, err
	}
	layout, err := sourceroot.DetectFiles(candFiles, req.SourceRoot, req.Entry, nil)
	if err != nil {
		return nil, exitcode.UsageErrorf("%v", err)
	}
	b := &built{layout: &layout}
	opts.Entry = layout.Entry
	baseFiles, err := revs.BaseFiles()
	if err != nil {
		return nil, err
	}
	var errB, errC error
	if req.Full {
		var wg sync.WaitGroup
		wg.Go(func() { b.base, errB = loadUnder(ctx, baseFiles, layout, opts) })
		wg.Go(func() { b.cand, errC = loadUnder(ctx, candFiles, layout, opts) })
		wg.Wait()
		b.fullBuild = "--full"
	} else {
		var changes *gitrev.Changes
		if ch, err := revs.Changes(ctx, repo); err == nil {
			changes = ch.Under(layout.SourceRoot)
		}
		b.base, b.cand, errB, errC = gitops.LoadPairFiles(ctx, under(baseFiles, layout), under(candFiles, layout), opts, changes)
		if b.cand != nil {
			b.fullBuild = b.cand.FullBuild
		}
		switch {
		case errB != nil || errC != nil:
		case removes(b.base, b.cand):
			// What else a removed namespace or CRD holds, and where a removed object
			// moved, are read from every tier.
			gitops.FillSkipped(ctx, b.base, b.cand)
		default:
			// A HelmRelease of an unchanged tier changes with the values or chart source
			// another tier declares and the candidate changes, and with the files of a
			// chart directory of the repository it installs.
			names := append(changedByName(b.base, b.cand), gitops.ChangedChartDirs(b.base, b.cand, changes)...)
			gitops.FillSkippedNaming(ctx, b.base, b.cand, names)
		}
	}
	if errors.Is(errC, kbuild.ErrPathNotFound) {
		return nil, exitcode.UsageErrorf("candidate: %v (is --path right, and --source-root?)", errC)
	}
	if errB != nil || errC != nil {
		for side, err := range map[string]error{"base": errB, "candidate": errC} {
			if err != nil {
				b.incomplete = append(b.incomplete, errGap(report.OpBuild, report.ObjectID{}, report.GapBuildFailed, side, err))
			}
		}
		slices.SortFunc(b.incomplete, func(a, b report.Gap) int { return strings.Compare(a.String(), b.String()) })
		b.base, b.cand = nil, nil
	}
	if b.base != nil && b.cand != nil && len(b.base.Tiers) == 0 && len(b.cand.Tiers) == 0 {
		// Nothing would be judged, and nothing judged is never SAFE: the entry is not what a
		// bootstrap syncs first (a hub-and-spoke repository bootstraps from hub/, not from
		// its clusters/), or the layout was not recognised.
		entries := "none found"
		if e := sourceroot.EntriesFiles(candFiles); len(e) > 0 {
			entries = strings.Join(e, ", ")
		}
		return nil, exitcode.UsageErrorf("the entry path %s (%s) declares no Flux Kustomization at base or candidate, so nothing would be judged; directories that could be the entry: %s: choose one with --path", layout.Entry, layout.EntryHow, entries)
	}
	return b, nil
}

// under are a revision's files rooted at the layout's source root.
func under(files gitrev.Files, layout sourceroot.Layout) gitrev.Files {
	return gitrev.Sub(files, layout.Dir(files.Root()))
}

// loadUnder loads a revision from the layout's source root (gitops.Load).
func loadUnder(ctx context.Context, files gitrev.Files, layout sourceroot.Layout, opts gitops.LoadOptions) (*gitops.Tree, error) {
	opts.Files = under(files, layout)
	return gitops.Load(ctx, opts.Files.Root(), opts)
}

// buildAllUnder builds the Kustomizations kss from the layout's source root (gitops.BuildAll).
func buildAllUnder(ctx context.Context, files gitrev.Files, layout sourceroot.Layout, kss []kbuild.Kustomization, opts gitops.LoadOptions) *gitops.Tree {
	opts.Files = under(files, layout)
	return gitops.BuildAll(ctx, opts.Files.Root(), kss, opts)
}

// removes reports whether the candidate drops any object the base's entry or tiers declare,
// from the tiers either side built: the tiers LoadPair left unbuilt are the same at both.
func removes(base, cand *gitops.Tree) bool {
	drops := func(bt, ct *gitops.Tier) bool {
		have := make(map[string]bool, len(ct.Objects))
		for _, o := range ct.Objects {
			have[kbuild.ObjectID(o)] = true
		}
		for _, o := range bt.Objects {
			if !have[kbuild.ObjectID(o)] {
				return true
			}
		}
		return false
	}
	if drops(base.EntryBuild, cand.EntryBuild) {
		return true
	}
	for id, bt := range base.Tiers {
		ct := cand.Tiers[id]
		switch {
		case ct == nil:
			return true
		case ct.NotBuilt():
			continue
		case drops(bt, ct):
			return true
		}
	}
	return false
}

// changedByName are the names of the objects that Flux objects read by name (ConfigMaps and
// Secrets for valuesFrom, Flux sources for a chart) which the candidate adds, changes or drops
// in the tiers both revisions built, sorted. A HelmRelease of a tier left unbuilt may read one
// (xunholy/k8s-gitops keeps every HelmRepository in one tier; szinn/k8s-homelab's
// konflate-staging reads the OCIRepository konflate-main declares; a release's values
// ConfigMap may sit beside another app's): helm-controller upgrades that release too, so it
// has to be seen.
func changedByName(base, cand *gitops.Tree) []string {
	read := func(t *gitops.Tree) map[string]*unstructured.Unstructured {
		out := map[string]*unstructured.Unstructured{}
		tiers := []*gitops.Tier{t.EntryBuild}
		for _, id := range t.IDs() {
			tiers = append(tiers, t.Tiers[id])
		}
		for _, tier := range tiers {
			if tier == nil || tier.NotBuilt() {
				continue
			}
			for _, o := range tier.Objects {
				if readByName(o) {
					out[kbuild.ObjectID(o)] = o
				}
			}
		}
		return out
	}
	b, c := read(base), read(cand)
	names := map[string]bool{}
	for id, o := range b {
		if x, ok := c[id]; !ok || !reflect.DeepEqual(o.Object, x.Object) {
			names[o.GetName()] = true
		}
	}
	for id, o := range c {
		if _, ok := b[id]; !ok {
			names[o.GetName()] = true
		}
	}
	// A HelmChart whose source changed serves another chart: a HelmRelease's spec.chartRef
	// names the HelmChart, not its source.
	for _, side := range []map[string]*unstructured.Unstructured{b, c} {
		for _, o := range side {
			if src, _, _ := unstructured.NestedString(o.Object, "spec", "sourceRef", "name"); o.GetKind() == "HelmChart" && names[src] {
				names[o.GetName()] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// readByName says whether o is of a kind Flux objects read by name: a ConfigMap, a Secret or
// a Flux source.
func readByName(o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	return gvk.Group == sourceGroup || (gvk.Group == "" && (gvk.Kind == "ConfigMap" || gvk.Kind == "Secret"))
}

// sourceGroup is the API group of Flux's sources.
const sourceGroup = "source.toolkit.fluxcd.io"

// liveTrees builds the cluster's Kustomizations as they are, at both revisions, except those
// from another source than the repository, which are listed as not covered. The
// postBuild.substituteFrom ConfigMaps are read from the cluster, as the controller reads them.
func liveTrees(ctx context.Context, revs *gitrev.Revisions, req Request, live Cluster, lk *LiveKustomizations) (*built, error) {
	opts := gitops.LoadOptions{AllowNetwork: req.AllowNetwork, NoFiles: true, Cache: req.Cache}
	candFiles, err := revs.CandidateFiles()
	if err != nil {
		return nil, err
	}
	entry := ""
	if req.Entry != "" {
		entry = kbuild.CleanPath(req.Entry)
	}
	opts.Source = gitops.PrimarySource(lk.Items, entry, nil)
	b := &built{}
	opts.ConfigMaps, b.incomplete = substitutionConfigMaps(ctx, live, lk.Items)
	var paths []string
	for _, ks := range lk.Items {
		if ks.Source() == opts.Source {
			paths = append(paths, ks.Path)
		}
	}
	layout, err := sourceroot.DetectFiles(candFiles, req.SourceRoot, entry, paths)
	if err != nil {
		return nil, exitcode.UsageErrorf("%v", err)
	}
	b.layout = &layout
	baseFiles, err := revs.BaseFiles()
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { b.base = buildAllUnder(ctx, baseFiles, layout, lk.Items, opts) })
	wg.Go(func() { b.cand = buildAllUnder(ctx, candFiles, layout, lk.Items, opts) })
	wg.Wait()
	return b, nil
}

// substitutionConfigMaps reads the ConfigMaps the Kustomizations' postBuild.substituteFrom
// names, by "namespace/name". Secrets are never read. A ConfigMap that is missing is left out
// (the build reports what depends on it); one that cannot be read makes the result incomplete.
func substitutionConfigMaps(ctx context.Context, live Cluster, kss []kbuild.Kustomization) (map[string]map[string]string, []report.Gap) {
	out := map[string]map[string]string{}
	var gaps []report.Gap
	for _, ks := range kss {
		for _, name := range ks.SubstituteFromConfigMaps() {
			key := ks.Namespace + "/" + name
			if _, done := out[key]; done {
				continue
			}
			data, found, err := live.ConfigMap(ctx, ks.Namespace, name)
			switch {
			case err != nil:
				gaps = append(gaps, errGap(report.OpGet, report.ObjectID{Version: "v1", Resource: "configmaps", Namespace: ks.Namespace, Name: name}, cluster.GapReason(err),
					fmt.Sprintf("reading configmaps/%s in namespace %s for Kustomization %s's postBuild.substituteFrom", name, ks.Namespace, ks.ID()), err))
				continue
			case !found:
				continue
			}
			if data == nil {
				data = map[string]string{}
			}
			out[key] = data
		}
	}
	return out, gaps
}
