package gitops

import (
	"context"
	"path"
	"runtime"
	"sync"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// LoadPair loads both revisions of a change from the same entry path, building only what the
// change touches, and returns each side's tree and error as Load would.
//
// A tier whose static inputs (the kustomization files it leads to and every file they name,
// read without building; staticReader) hold no changed path, whose Kustomization object and
// substitution sources are the same at both revisions, and whose files cannot declare what
// the walk reads (Flux objects, a ConfigMap or Secret that some substituteFrom names) is
// built at neither: both trees hold it with Tier.NotBuilt set and no objects, the
// candidate's Unchanged too. A tier that may declare what the walk reads is built once, at
// the base, and reused at the candidate when the reads its build recorded did not change
// (LoadIncremental); every other tier is built at both. With changes nil or uncertain, or
// the network allowed, the base is built whole and the candidate against it.
//
// Which names substituteFrom reads is known only once the walk is done: when a tier that
// was not built turns out to declare one, both revisions are loaded again without skipping.
func LoadPair(ctx context.Context, baseRoot, candRoot string, opts LoadOptions, changes *gitrev.Changes) (base, cand *Tree, errB, errC error) {
	return LoadPairFiles(ctx, gitrev.Disk(baseRoot), gitrev.Disk(candRoot), opts, changes)
}

// LoadPairFiles is LoadPair over the files of each revision (opts.Files is set for each
// side): a revision read from git's objects is loaded without being written out.
func LoadPairFiles(ctx context.Context, baseFiles, candFiles gitrev.Files, opts LoadOptions, changes *gitrev.Changes) (base, cand *Tree, errB, errC error) {
	baseRoot, candRoot := baseFiles.Root(), candFiles.Root()
	bo := opts
	bo.RecordInputs, bo.Files = true, baseFiles
	opts.Files = candFiles
	var sb, sc *staticSkip
	if changes != nil && changes.Uncertain == "" && !opts.AllowNetwork {
		sb, sc = newStaticSkip(ctx, baseFiles, changes), newStaticSkip(ctx, candFiles, changes)
		sc.reader.prev, sc.reader.changes = sb.reader, changes
		base, errB = load(ctx, baseRoot, bo, &incremental{root: baseRoot, static: sb}, sb)
	} else {
		base, errB = Load(ctx, baseRoot, bo)
	}
	a := Against{Base: base, Changes: changes}
	if errB != nil {
		a, sc = Against{}, nil // the candidate alone, built whole
	}
	cand, errC = loadIncremental(ctx, candRoot, opts, a, sc)
	if errB != nil || errC != nil || sb == nil {
		return base, cand, errB, errC
	}
	if sb.missed(base) || sc.missed(cand) {
		if base, errB = Load(ctx, baseRoot, bo); errB != nil {
			return base, cand, errB, errC
		}
		cand, errC = LoadIncremental(ctx, candRoot, opts, Against{Base: base, Changes: changes})
		return base, cand, errB, errC
	}
	base.buildNow(ctx, baseToBuild(base, cand))
	return base, cand, errB, errC
}

// FillSkipped builds every tier LoadPair left unbuilt, at the base, and gives the candidate's
// the same output (its inputs are the base's): for a caller that needs every object, such
// as a judge of removals that counts what else a namespace or a CRD holds.
func FillSkipped(ctx context.Context, base, cand *Tree) {
	fillSkipped(ctx, base, cand, func(*Tier) bool { return true })
}

// NotBuilt says no revision built the tier (LoadPair): none of its inputs changed and the walk
// needs nothing from it, so it builds to the same objects at both; Objects and Files are empty.
func (t *Tier) NotBuilt() bool { return t.Inputs != nil && t.Inputs.skipped }

// baseToBuild are the base's unbuilt tiers the candidate built or no longer has: their
// objects are compared.
func baseToBuild(base, cand *Tree) []*Tier {
	var out []*Tier
	for _, id := range base.IDs() {
		bt := base.Tiers[id]
		if ct := cand.Tiers[id]; bt.NotBuilt() && (ct == nil || !ct.NotBuilt()) {
			out = append(out, bt)
		}
	}
	return out
}

// buildNow builds tiers the walk left unbuilt, as the walk's final builds would have: with
// every substitution source.
func (r *Tree) buildNow(ctx context.Context, tiers []*Tier) {
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, t := range tiers {
		in := *t.Inputs
		in.skipped = false
		t.Inputs = &in
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			throughCache(r.cache, t, r.opts, func(o kbuild.Options) { r.rebuild(ctx, t, t, o) })
		})
	}
	wg.Wait()
}

// staticSkip is the loader's reader of kustomization files at one root, with the names that
// postBuild.substituteFrom reads in the Kustomizations the walk has met so far.
type staticSkip struct {
	reader *staticReader
	// scan is the walk of the root, which Load reuses.
	scan    *kbuild.Root
	changes *gitrev.Changes
	refs    refNames
	// off says why nothing is skipped.
	off string
}

func newStaticSkip(ctx context.Context, files gitrev.Files, changes *gitrev.Changes) *staticSkip {
	scan := kbuild.ScanFiles(ctx, files)
	s := &staticSkip{reader: newStaticReader(files.Root(), scan.Links), changes: changes, scan: scan}
	s.reader.files = files
	for _, p := range changes.Paths {
		if path.Base(p) == ".sourceignore" || p == "." {
			s.off = "a .sourceignore file changed, which may change what every build sees"
		}
	}
	return s
}

// skippable reports whether t need not be built at this root: see LoadPair. spec is
// specFingerprint(t.Kustomization), which the caller has already computed.
func (s *staticSkip) skippable(t *Tier, opts kbuild.Options, spec string) bool {
	if s.off != "" || linksOf(opts) == nil || spec == "" {
		return false
	}
	if s.reader.kind(kbuild.CleanPath(t.Kustomization.Path)) != "dir" {
		return false // it fails, and says so
	}
	in := s.reader.tier(t.Kustomization)
	if in.mustBuild != "" || !linksOf(opts).Clear(in.paths...) {
		return false
	}
	for _, p := range in.paths {
		if s.changes.Touches(p) {
			return false
		}
	}
	return s.reader.discovery(in, &s.refs) == ""
}

// missed reports whether a tier left unbuilt declares, after all, a ConfigMap or Secret that
// a substituteFrom the walk met later names.
func (s *staticSkip) missed(r *Tree) bool {
	var all refNames
	for _, t := range r.Tiers {
		all.add(t.Kustomization)
	}
	for _, t := range r.Tiers {
		if t.NotBuilt() && s.reader.discovery(s.reader.tier(t.Kustomization), &all) != "" {
			return true
		}
	}
	return false
}

// see records the substituteFrom names of a level of the walk before any of it is built.
func (i *incremental) see(tiers []*Tier) {
	if i.static == nil {
		return
	}
	for _, t := range tiers {
		i.static.refs.add(t.Kustomization)
	}
}

// staticReuse decides t's build when the base did not build it or this build is the
// base's: skip says t is not built, decided that the other rules of reuse do not apply.
func (i *incremental) staticReuse(t *Tier, opts kbuild.Options) (skip, decided bool) {
	var bt *Tier
	if i.base != nil {
		bt = i.base.Tiers[t.ID()]
	}
	switch {
	case i.base == nil && t.Inputs == nil: // the base's walk
		if i.static == nil {
			return false, false
		}
		spec := specFingerprint(t.Kustomization)
		if !i.static.skippable(t, opts, spec) {
			return false, false
		}
		t.Inputs = &Inputs{spec: spec, skipped: true}
		t.Inputs.subst[0] = substFingerprint(t.Kustomization.Object, opts)
		return true, true
	case i.base == nil && t.NotBuilt(): // the base's build with every source
		t.Inputs.subst[1] = substFingerprint(t.Kustomization.Object, opts)
		return true, true
	case bt == nil || !bt.NotBuilt():
		return false, false
	case t.Inputs == nil: // the candidate's walk, of a tier the base did not build
		fp := substFingerprint(t.Kustomization.Object, opts)
		if i.static != nil && i.off == "" && fp != "" && fp == bt.Inputs.subst[0] &&
			bt.Inputs.spec != "" && specFingerprint(t.Kustomization) == bt.Inputs.spec &&
			i.static.skippable(t, opts, bt.Inputs.spec) {
			in := *bt.Inputs
			t.Inputs, t.Unchanged = &in, true
			return true, true
		}
		return false, true // built here, and at the base afterwards (baseToBuild)
	case t.NotBuilt(): // the candidate's build with every source
		if fp := substFingerprint(t.Kustomization.Object, opts); fp != "" && fp == bt.Inputs.subst[1] {
			return true, true
		}
		in := Inputs{spec: t.Inputs.spec, subst: [2]string{t.Inputs.subst[0]}}
		t.Inputs, t.Unchanged = &in, false
		return false, true
	}
	return false, false
}
