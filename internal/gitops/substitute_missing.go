package gitops

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/kubeforensics/suite/internal/kbuild"
)

// BuildWithout builds again the tiers whose postBuild.substituteFrom reads a source of
// missing (kbuild.Options.Missing: "Kind/namespace/name" to why it is known to be absent from
// the cluster), with those sources absent, as kustomize-controller would meet them: a
// reference that is not optional fails the tier's build, an optional one defines nothing. The
// tree keeps missing for every later build (WithFiles). It returns the ids of the tiers built
// again, sorted.
func (r *Tree) BuildWithout(ctx context.Context, missing map[string]string) []string {
	if len(missing) == 0 {
		return nil
	}
	r.opts.Missing = maps.Clone(missing)
	var again []string
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		if t.Owner != "" || t.NotCovered != "" || t.NotBuilt() || !readsAny(t.Kustomization, missing) {
			continue
		}
		again = append(again, id)
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, id := range again {
		t := r.Tiers[id]
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r.rebuild(ctx, t, t, r.opts)
		})
	}
	wg.Wait()
	return slices.Clip(again)
}

// readsAny says whether ks's postBuild.substituteFrom reads one of the sources of ids.
func readsAny(ks kbuild.Kustomization, ids map[string]string) bool {
	for _, s := range ks.SubstituteFrom() {
		if _, ok := ids[s.ID]; ok {
			return true
		}
	}
	return false
}
