package gitops

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// Against is what LoadIncremental reuses.
type Against struct {
	// Base is the base revision's tree, loaded with LoadOptions.RecordInputs from the same
	// entry path.
	Base *Tree
	// Changes are the paths that differ between the base's root and the candidate's, relative
	// to the source root (gitrev.Repo.Changes, then Changes.Under).
	Changes *gitrev.Changes
	// Full forces every tier to be built, as Load does.
	Full bool
}

// LoadIncremental loads root exactly as Load does with opts, except that a tier none of
// whose inputs changed since a.Base is copied from it instead of built: its objects, files,
// error and variables are the base's (shared, not copied: treat them as read-only) and
// Tier.Unchanged is set. A tier's inputs are the files and directories its build read, the
// Kustomization object it is built from (its parent's build, which is itself a tier or the
// entry path, always built), and what its post-build substitution read of the ConfigMaps and
// Secrets the builds declare, wherever they are declared.
//
// A tier is built whenever its reuse is uncertain: a new tier, one whose base build read
// outside the root or wrote to disk, read at, above or below a symlink of either root (a
// change to the link's target changes no path the tier read), failed for another reason than
// remote bases or a missing path, or was not recorded. Every tier is built, and
// Tree.FullBuild says why, when a.Full is set, there is no base or no trustworthy list of
// changes, either root could not be walked for its symlinks, or the options differ from the
// base's. The returned tree records its own inputs.
func LoadIncremental(ctx context.Context, root string, opts LoadOptions, a Against) (*Tree, error) {
	return loadIncremental(ctx, root, opts, a, nil)
}

// loadIncremental is LoadIncremental, which with static also skips the tiers the base did not
// build and this root need not (LoadPair).
func loadIncremental(ctx context.Context, root string, opts LoadOptions, a Against, static *staticSkip) (*Tree, error) {
	opts.RecordInputs = true
	inc := &incremental{base: a.Base, changes: a.Changes, root: root, static: static}
	inc.off = a.fullReason(opts)
	t, err := load(ctx, root, opts, inc, static)
	if t != nil {
		t.FullBuild = inc.off
	}
	return t, err
}

// fullReason says why nothing can be reused, "" when tiers may be.
func (a Against) fullReason(opts LoadOptions) string {
	switch {
	case a.Full:
		return "a full build was asked for"
	case a.Base == nil:
		return "there is no base tree"
	case a.Changes == nil:
		return "the changes between the revisions are not known"
	case a.Changes.Uncertain != "":
		return a.Changes.Uncertain
	case opts.AllowNetwork:
		return "remote bases may change between builds"
	case a.Base.Entry != kbuild.CleanPath(opts.Entry):
		return "the base was loaded from another entry path"
	case a.Base.opts.NoFiles != opts.NoFiles:
		return "the base was loaded with other options"
	case linksOf(a.Base.opts) == nil:
		return "the base's tree could not be walked for symlinks"
	}
	return ""
}

// Reuse decides, for each build of a tier from the repository's own files, whether Load runs
// it: the walk asks Skip before a build (a tier it skips has its output from elsewhere) and
// Before for the options it runs with, and tells After what came of it. Whether a tier is
// built from the repository, from a generated artifact or rendered, and how, is the loader's
// alone (loader.build); a Reuse only leaves builds out.
type Reuse interface {
	// Level is told of a level of the walk before any of it is built.
	Level(tiers []*Tier)
	// Skip reports whether t's build is left out, its output given to t by the Reuse.
	Skip(t *Tier, opts kbuild.Options) bool
	// Before returns the options t's build runs with.
	Before(t *Tier, opts kbuild.Options) kbuild.Options
	// After is told that t was built with opts, or, hit, taken from the build cache, whose key
	// covers the paths covered.
	After(t *Tier, opts kbuild.Options, covered []string, hit bool)
}

// buildEvery is the Reuse of a walk that builds every tier and records nothing.
type buildEvery struct{}

func (buildEvery) Level([]*Tier)                                      {}
func (buildEvery) Skip(*Tier, kbuild.Options) bool                    { return false }
func (buildEvery) Before(_ *Tier, opts kbuild.Options) kbuild.Options { return opts }
func (buildEvery) After(*Tier, kbuild.Options, []string, bool)        {}

// recorder is the Reuse of a Load that reuses nothing: one that records each tier's inputs
// when opts ask for them (RecordInputs), else buildEvery.
func recorder(root string, opts LoadOptions) Reuse {
	if opts.RecordInputs {
		return &incremental{root: root}
	}
	return buildEvery{}
}

// incremental is the Reuse that records each tier's inputs and, given a base, copies the
// tiers whose inputs did not change (and, given static, leaves out those LoadPair need not
// build).
//
// Load builds a tier once in its walk, with the substitution sources of the levels above, and
// a tier that uses postBuild.substituteFrom once more at the end with every source: the
// second build's objects are the tier's, but its children and the sources it declares were
// taken from the first. So each build is decided on its own: the walk's build is reused when
// the reads, the object and the walk's substitution sources are unchanged, and the final one
// when, in addition, the final sources are.
type incremental struct {
	base    *Tree
	changes *gitrev.Changes
	root    string
	// off says why no tier is reused (set before Load, or by the first build that finds the
	// candidate's symlinks unknown).
	off string
	// static, when set, skips the tiers no revision needs built (LoadPair).
	static *staticSkip
}

// Level records the substituteFrom names of a level of the walk before any of it is built.
func (i *incremental) Level(tiers []*Tier) { i.see(tiers) }

// Skip copies t from the base or leaves it unbuilt when it may (reuse).
func (i *incremental) Skip(t *Tier, opts kbuild.Options) bool { return i.reuse(t, opts) }

// Before fingerprints what t's build reads and gives it a log of its reads (record).
func (i *incremental) Before(t *Tier, opts kbuild.Options) kbuild.Options { return i.record(t, opts) }

// After stores what t's build read: the log's reads, or, from the cache, the paths its key
// covers.
func (i *incremental) After(t *Tier, opts kbuild.Options, covered []string, hit bool) {
	if hit {
		i.cached(t, covered)
		return
	}
	i.built(t, opts)
}

// reuse copies t from the base when its build would repeat the base's, or skips t's final
// build when it would repeat the walk's, and reports whether it did. A tier with Inputs
// already set is at its final build.
func (i *incremental) reuse(t *Tier, opts kbuild.Options) bool {
	if skip, decided := i.staticReuse(t, opts); decided {
		return skip
	}
	if t.Inputs != nil && !t.Unchanged && t.Inputs.walk == nil {
		// Built by this walk: the final build reads the same files and object, so it
		// repeats the walk's when it reads the same substitution sources too.
		if fp := substFingerprint(t.Kustomization.Object, opts); fp != "" && fp == t.Inputs.subst[0] {
			t.Inputs.subst[1] = fp
			return true
		}
		return false
	}
	if i.base == nil || i.off != "" {
		return false
	}
	if linksOf(opts) == nil {
		i.off = "the candidate's tree could not be walked for symlinks"
		return false
	}
	bt := i.base.Tiers[t.ID()]
	if t.Inputs != nil { // the final build, with every substitution source
		if !t.Unchanged {
			return false
		}
		if fp := substFingerprint(t.Kustomization.Object, opts); fp == "" || fp != bt.Inputs.subst[1] {
			t.Unchanged = false
			return false
		}
		copyOutput(t, bt, nil)
		return true
	}
	if !i.unchanged(t, bt, opts) {
		return false
	}
	in := *bt.Inputs
	t.Inputs, t.Unchanged = &in, true
	copyOutput(t, bt, in.walk)
	return true
}

// unchanged reports whether t's walk build would read exactly what bt's did.
func (i *incremental) unchanged(t, bt *Tier, opts kbuild.Options) bool {
	if bt == nil || bt.Inputs == nil || bt.NotBuilt() || bt.Inputs.Incomplete != "" || bt.NotCovered != "" {
		return false
	}
	if bt.Err != nil && !errors.Is(bt.Err, kbuild.ErrNeedsNetwork) && !errors.Is(bt.Err, kbuild.ErrPathNotFound) {
		return false
	}
	in := bt.Inputs
	if fp := specFingerprint(t.Kustomization); fp == "" || fp != in.spec {
		return false
	}
	// A read through a symlink reads what a list of changed paths does not describe.
	probed := slices.Collect(maps.Keys(in.Probed))
	for _, links := range []*kbuild.LinkSet{linksOf(opts), linksOf(i.base.opts)} {
		if !links.Clear(in.Paths...) || !links.Clear(probed...) {
			return false
		}
	}
	if fp := substFingerprint(t.Kustomization.Object, opts); fp == "" || fp != in.subst[0] {
		return false
	}
	for _, p := range in.Paths {
		if i.changes.Touches(p) {
			return false
		}
	}
	for p, kind := range in.Probed {
		// A change there: the answer holds while the path is still what it was.
		if i.changes.Touches(p) && kbuild.PathKind(opts.FilesOf(i.root), filepath.Join(i.root, filepath.FromSlash(p))) != kind {
			return false
		}
	}
	return true
}

// copyOutput gives t the base tier's build output, or the walk's when given.
func copyOutput(t, bt *Tier, walk *walkOutput) {
	t.Objects, t.Files = bt.Objects, bt.Files
	if walk != nil {
		t.Objects, t.Files = walk.objects, walk.files
	}
	t.Err, t.RemoteURLs, t.Undefined, t.Unresolved, t.Defaulted = bt.Err, bt.RemoteURLs, bt.Undefined, bt.Unresolved, bt.Defaulted
}

// record returns the options t's build runs with: with a log of its reads when inputs are
// recorded. It fingerprints the object and the substitution sources this build reads, and at
// the final build keeps the walk's output when the sources differ from the walk's.
func (i *incremental) record(t *Tier, opts kbuild.Options) kbuild.Options {
	fp := substFingerprint(t.Kustomization.Object, opts)
	if t.Inputs == nil {
		t.Inputs = &Inputs{spec: specFingerprint(t.Kustomization)}
		t.Inputs.subst[0] = fp
	} else {
		in := *t.Inputs // it may be the base's
		in.subst[1] = fp
		in.walk = nil
		if fp != in.subst[0] || fp == "" {
			in.walk = &walkOutput{objects: t.Objects, files: t.Files}
		}
		t.Inputs = &in
	}
	opts.Reads = kbuild.NewReadLog(opts.FilesOf(i.root))
	return opts
}

// built stores the reads of t's build.
func (i *incremental) built(t *Tier, opts kbuild.Options) {
	if opts.Reads == nil {
		return
	}
	paths, probed, bad := opts.Reads.Reads()
	in := t.Inputs
	for p, kind := range in.Probed {
		probed[p] = kind
	}
	in.Paths = slices.Compact(slices.Sorted(slices.Values(append(paths, in.Paths...))))
	in.Probed = probed
	if in.Incomplete == "" {
		in.Incomplete = bad
	}
}
