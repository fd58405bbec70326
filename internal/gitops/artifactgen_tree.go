package gitops

import (
	"context"
	"maps"
	"slices"
)

// notCovered is the loader's hook: why tier t is not built from the repository, "" when it is.
// A ResourceSet's tier is rendered, never built, so it is always covered.
func (l *loader) notCovered(t *Tier) string {
	if t.Owner != "" {
		return ""
	}
	return l.ext.notCovered(t, l.primary)
}

// build is the loader's hook that builds one covered tier with opts.
func (l *loader) build(ctx context.Context, t *Tier, opts BuildOptions) {
	if t.Owner != "" {
		return
	}
	l.ext.build(ctx, l.root, t, opts, l.primary)
}

// rebuild builds again as t was built, for WithFiles: from its artifact, materialised anew and
// removed afterwards, when it was; a ResourceSet's tier keeps what it rendered, each object's
// file being the ResourceSet's.
func (r *Tree) rebuild(ctx context.Context, again, t *Tier, opts BuildOptions) {
	switch {
	case t.Owner != "":
		again.Objects, again.Err = t.Objects, t.Err
		again.Files = r.resourceSetFiles(ctx, t)
	case r.ext != nil:
		ext := r.ext.fresh()
		defer ext.close()
		ext.build(ctx, r.Root, again, opts, r.Source)
	default:
		BuildTier(ctx, r.Root, again, opts)
	}
}

// fresh returns the same generators with no artifact materialised yet.
func (a *artifacts) fresh() *artifacts {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := newArtifacts(a.root)
	for id, g := range a.byID {
		b.byID[id] = g
	}
	return b
}

// GeneratedSources lists the ExternalArtifacts ("ExternalArtifact/namespace/name") that the
// repository's ArtifactGenerators make, sorted: sources that exist in the cluster although no
// build declares them as objects.
func (r *Tree) GeneratedSources() []string {
	if r.ext == nil {
		return nil
	}
	r.ext.mu.Lock()
	defer r.ext.mu.Unlock()
	set := map[string]bool{}
	for id := range r.ext.byID {
		set[externalArtifactKind+"/"+id] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// reusable says whether the incremental hook may record and reuse t: a tier built from the
// repository's own files. A ResourceSet's objects and an ExternalArtifact's build come from
// inputs the recorded reads do not cover (the generator's copy, the providers' inputs), so
// those tiers are always built.
func (l *loader) reusable(t *Tier) bool {
	return t.Owner == "" && t.Kustomization.SourceKind != "ExternalArtifact"
}
