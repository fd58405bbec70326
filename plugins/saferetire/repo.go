package saferetire

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/exitcode"
	"github.com/kubeforensics/suite/internal/gitops"
	"github.com/kubeforensics/suite/internal/retire"
)

// sides are the two revisions a gate compares. Each is extracted in the background as soon as
// it is resolved, so extracting the base overlaps with building the working tree.
type sides struct {
	base, cand *pending
}

// pending is a snapshot being extracted.
type pending struct {
	rev  string
	snap *gitops.Snapshot
	err  error
	done chan struct{}
}

func extract(repo *gitops.Repo, rev string) *pending {
	p := &pending{rev: rev, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.snap, p.err = repo.Snapshot(rev)
	}()
	return p
}

// dir waits for the snapshot and returns its root.
func (p *pending) dir() (string, error) {
	<-p.done
	if p.err != nil {
		return "", exitcode.WithCode(exitcode.Of(p.err), fmt.Errorf("extracting revision %q: %w", p.rev, p.err))
	}
	return p.snap.Dir, nil
}

func (s sides) Close() {
	for _, p := range []*pending{s.base, s.cand} {
		if p != nil {
			<-p.done
			if p.snap != nil {
				_ = p.snap.Close()
			}
		}
	}
}

// snapshots resolves the base and candidate revisions (the base defaults to the repo's) and
// starts extracting them; an unknown revision is bad input, reported before any work.
func snapshots(repo *gitops.Repo, base, cand string, res *Result) (sides, error) {
	var s sides
	if base == "" {
		rev, how, err := repo.DefaultBase()
		if err != nil {
			return s, err
		}
		base, res.BaseHow = rev, how
	} else {
		res.BaseHow = "given with --base"
	}
	res.Base, res.Candidate = Revision{Rev: base}, Revision{Rev: cand}
	var err error
	if res.Base.Commit, err = repo.Resolve(base); err != nil {
		return s, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("base revision %q: %w", base, err))
	}
	if cand != "" {
		if res.Candidate.Commit, err = repo.Resolve(cand); err != nil {
			return s, exitcode.WithCode(exitcode.Of(err), fmt.Errorf("candidate revision %q: %w", cand, err))
		}
	}
	return sides{base: extract(repo, base), cand: extract(repo, cand)}, nil
}

// trees builds the two revisions. Offline, each is walked from the entry path (gitops.Load), so
// every Kustomization is found in build output with its rendered spec; live, the cluster's
// Kustomizations are built as they are, except those from another source than the repository,
// which are listed as not covered. Either way the source root (the artifact's root inside the
// repository) is the one given or detected, and res says which.
func trees(ctx context.Context, s sides, req Request, lv *liveView, res *Result) (base, cand *gitops.Tree, err error) {
	// Files are found afterwards, for the removed objects only (removalFiles).
	opts := gitops.LoadOptions{AllowNetwork: req.AllowNetwork, NoFiles: true}
	candDir, err := s.cand.dir()
	if err != nil {
		return nil, nil, err
	}
	if lv == nil {
		layout, err := gitops.DetectLayout(candDir, req.SourceRoot, req.Entry, nil)
		if err != nil {
			return nil, nil, exitcode.UsageErrorf("%v", err)
		}
		res.Layout = &layout
		opts.Entry = layout.Entry
		var errB, errC, errX error
		var wg sync.WaitGroup
		wg.Go(func() {
			var baseDir string
			if baseDir, errX = s.base.dir(); errX == nil {
				base, errB = gitops.Load(ctx, layout.Dir(baseDir), opts)
			}
		})
		wg.Go(func() { cand, errC = gitops.Load(ctx, layout.Dir(candDir), opts) })
		wg.Wait()
		if errX != nil {
			return nil, nil, errX
		}
		if errors.Is(errC, gitops.ErrPathNotFound) {
			return nil, nil, exitcode.UsageErrorf("candidate: %v (is --path right, and --source-root?)", errC)
		}
		// Without either side's Kustomizations nothing can be compared: every tier of the
		// other side would look deleted.
		if errB != nil || errC != nil {
			for side, err := range map[string]error{"base": errB, "candidate": errC} {
				if err != nil {
					res.Incomplete = append(res.Incomplete, fmt.Sprintf("%s: %v", side, err))
				}
			}
			sort.Strings(res.Incomplete)
			return nil, nil, nil
		}
		return base, cand, nil
	}
	live := lv.kustomizations
	entry := ""
	if req.Entry != "" {
		entry = gitops.CleanPath(req.Entry)
	}
	opts.Source = gitops.PrimarySource(live, entry)
	if lv != nil {
		var gaps []string
		opts.ConfigMaps, gaps = lv.substitutionConfigMaps(ctx)
		res.Incomplete = append(res.Incomplete, gaps...)
	}
	var paths []string
	for _, ks := range live {
		if ks.Source() == opts.Source {
			paths = append(paths, ks.Path)
		}
	}
	layout, err := gitops.DetectLayout(candDir, req.SourceRoot, "", paths)
	if err != nil {
		if req.SourceRoot != "" {
			return nil, nil, exitcode.UsageErrorf("%v", err)
		}
		// Let the Kustomization whose path is missing be named below.
		layout = gitops.Layout{SourceRoot: ".", SourceRootHow: "the repository's top level (no directory holds every spec.path)"}
	}
	if entry != "" {
		layout.Entry, layout.EntryHow = entry, "given with --path: its Kustomization's source is the repository's"
	}
	res.Layout = &layout
	baseDir, err := s.base.dir()
	if err != nil {
		return nil, nil, err
	}
	var wg sync.WaitGroup
	wg.Go(func() { base = gitops.BuildAll(ctx, layout.Dir(baseDir), live, opts) })
	wg.Go(func() { cand = gitops.BuildAll(ctx, layout.Dir(candDir), live, opts) })
	wg.Wait()
	return base, cand, nil
}

// pairTiers pairs each Kustomization's base and candidate builds. One known on one side only is
// compared on that side: a Kustomization that the candidate deletes takes its objects with it
// when it prunes. A tier that did not build on a side it exists on is UNKNOWN, never unsafe:
// it is listed with the remote URLs it lacked and left out, as is a tier whose object names
// depend on unresolved variables; a tier built from another source is listed as not covered.
func pairTiers(base, cand *gitops.Tree, res *Result) ([]retire.Unit, error) {
	if base == nil || cand == nil {
		return nil, nil
	}
	ids := map[string]bool{}
	for id := range base.Tiers {
		ids[id] = true
	}
	for id := range cand.Tiers {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	var out []retire.Unit
	for _, id := range sorted {
		bt, ct := base.Tiers[id], cand.Tiers[id]
		ks := ct
		if ks == nil {
			ks = bt
		}
		if ks.NotCovered != "" {
			res.NotCovered = append(res.NotCovered, id+": "+ks.NotCovered)
			continue
		}
		if missing(bt) && missing(ct) {
			return nil, exitcode.UsageErrorf("Kustomization %s: path %s is not in the repository at base or candidate (is --repo the repository its source builds? is --source-root its artifact's root?)", id, ks.Kustomization.Path)
		}
		u := retire.Unit{Kustomization: toRetire(ks.Kustomization)}
		ok := true
		for _, side := range []struct {
			name string
			t    *gitops.Tier
			objs *[]*unstructured.Unstructured
		}{{"base", bt, &u.Base}, {"candidate", ct, &u.Candidate}} {
			if side.t == nil {
				continue
			}
			if side.t.Err != nil {
				res.Unbuilt = append(res.Unbuilt, Unbuilt{Kustomization: id, Side: side.name, Path: side.t.Kustomization.Path,
					Error: side.t.Err.Error(), RemoteURLs: side.t.RemoteURLs})
				ok = false
				continue
			}
			if len(side.t.Unresolved) > 0 {
				res.Incomplete = append(res.Incomplete, fmt.Sprintf("Kustomization %s: %s build leaves %s unresolved in object names", id, side.name, strings.Join(side.t.Unresolved, ", ")))
				ok = false
				continue
			}
			*side.objs = side.t.Objects
		}
		if ok {
			out = append(out, u)
		}
	}
	return out, nil
}

// missing reports whether a tier exists only in name: its path is not in the snapshot.
func missing(t *gitops.Tier) bool {
	return t == nil || errors.Is(t.Err, gitops.ErrPathNotFound)
}

// removalFiles names the file of every removed object that the base built: the base tiers
// with removals are built once more, recording files (the gate's own builds skip that, a fifth
// of their time), and each file is made relative to the repository's top level.
func removalFiles(ctx context.Context, base *gitops.Tree, rs []retire.Removal, res *Result) {
	layout := gitops.Layout{SourceRoot: "."}
	if res.Layout != nil {
		layout = *res.Layout
	}
	files := map[string]map[string]string{} // Kustomization -> inventory id -> file
	for i := range rs {
		ks := rs[i].Kustomization
		if rs[i].Base() == nil {
			continue
		}
		if _, done := files[ks]; !done {
			files[ks] = map[string]string{}
			if t := base.WithFiles(ctx, ks); t != nil && t.Err == nil {
				for j, o := range t.Objects {
					if f := t.FileAt(j); f != "" {
						files[ks][gitops.ObjectID(o)] = layout.FromTop(f)
					}
				}
			}
		}
		rs[i].File = files[ks][gitops.ObjectID(rs[i].Base())]
	}
}

func toRetire(ks gitops.Kustomization) retire.Kustomization {
	k := retire.Kustomization{Namespace: ks.Namespace, Name: ks.Name, Path: ks.Path, Prune: ks.Prune, Wait: ks.Wait}
	if ks.Timeout > 0 {
		k.Timeout = ks.Timeout.String()
	}
	if ks.Object != nil {
		hc, _, _ := unstructured.NestedSlice(ks.Object.Object, "spec", "healthChecks")
		k.HealthChecks = len(hc) > 0
	}
	return k
}
