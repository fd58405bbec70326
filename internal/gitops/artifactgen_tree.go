package gitops

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/artifactgen"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
)

// notCovered says why tier t is not built from the repository, "" when it is. A
// ResourceSet's tier is rendered, never built, so it is always covered; so is a tier whose
// source is another GitRepository of this repository's url and ref (sameRepository), unless
// that source's spec.ignore leaves the tier's path out.
func (l *loader) notCovered(t *Tier) string {
	if t.Owner != "" {
		return ""
	}
	if g, ok := l.same[t.Kustomization.Source()]; ok {
		if g.ignoresPath(t.Kustomization.Path) {
			return fmt.Sprintf("its source %s is this repository (as %s is), but its spec.ignore leaves out %s", t.Kustomization.Source(), l.primary, t.Kustomization.Path)
		}
		return ""
	}
	why := l.ext.NotCovered(t.Kustomization, l.primary)
	if why != "" && t.Kustomization.SourceKind == gitRepositoryKind && strings.HasPrefix(l.primary, gitRepositoryKind+"/") {
		if more := l.idents.why(t.Kustomization.Source(), l.primary); more != "" {
			why += ": " + more
		}
	}
	return why
}

// coveredLate returns the tiers left not covered whose source the objects of every build
// (the entry's and each tier's) show to be this repository: a GitRepository declared at the
// level of its readers or after them. They are taken out of r, for walk to build them anew;
// the others' reasons are said again with what the whole walk declares.
func (l *loader) coveredLate(r *Tree) []*Tier {
	objs := append([]*unstructured.Unstructured(nil), r.EntryBuild.Objects...)
	for _, id := range r.IDs() {
		objs = append(objs, r.Tiers[id].Objects...)
	}
	l.idents = sourceIdentities(objs)
	l.same = l.idents.same(l.primary)
	var late []*Tier
	for _, id := range r.IDs() {
		t := r.Tiers[id]
		if t.NotCovered == "" {
			continue
		}
		if t.NotCovered = l.notCovered(t); t.NotCovered == "" {
			delete(r.Tiers, id)
			late = append(late, t)
		}
	}
	return late
}

// build builds one covered tier with opts; a ResourceSet's tier was rendered already.
func (l *loader) build(ctx context.Context, t *Tier, opts kbuild.Options) {
	if t.Owner != "" {
		return
	}
	buildFrom(ctx, l.ext, l.root, t, opts, l.primary)
}

// buildFrom builds tier t: from root, or, when its source is an ExternalArtifact that a
// generator of ext makes from root (whose source is primary), from that artifact
// materialised first, with the links and ignore rules of its own directory. Files name the
// source's files.
func buildFrom(ctx context.Context, ext *artifactgen.Set, root string, t *Tier, opts kbuild.Options, primary string) {
	g := ext.Lookup(t.Kustomization)
	if g == nil || t.Kustomization.Source() == primary || g.From(primary) != "" {
		BuildTier(ctx, root, t, opts)
		return
	}
	t.Generated = g.Describe()
	if err := opts.FilesOf(root).OnDisk(ctx); err != nil {
		t.Objects, t.Files, t.Err = nil, nil, err
		return
	}
	dir, files, err := ext.Materialise(g)
	if err != nil {
		t.Objects, t.Files, t.Err = nil, nil, err
		return
	}
	opts.Root = kbuild.ScanRoot(ctx, dir)
	BuildTier(ctx, dir, t, opts)
	for i, f := range t.Files {
		t.Files[i] = files[f]
	}
}

// onDiskFor writes the root's revision out when objs hold an ArtifactGenerator (once: later
// calls cost nothing): artifactgen discovers and copies its artifacts' files on disk.
func onDiskFor(ctx context.Context, files gitrev.Files, objs []*unstructured.Unstructured) error {
	for _, o := range objs {
		if o.GetKind() == "ArtifactGenerator" {
			if err := files.OnDisk(ctx); err != nil {
				return fmt.Errorf("writing out the revision for ArtifactGenerator %s/%s: %w", o.GetNamespace(), o.GetName(), err)
			}
			return nil
		}
	}
	return nil
}

// rebuild builds again as t was built, for WithFiles: from its artifact, materialised anew and
// removed afterwards, when it was; a ResourceSet's tier keeps what it rendered, each object's
// file being the ResourceSet's.
func (r *Tree) rebuild(ctx context.Context, again, t *Tier, opts kbuild.Options) {
	switch {
	case t.Owner != "":
		again.Objects, again.Err = t.Objects, t.Err
		again.Files = r.resourceSetFiles(ctx, t)
	case r.ext != nil:
		ext := r.ext.Fresh()
		defer ext.Close()
		buildFrom(ctx, ext, r.Root, again, opts, r.Source)
	default:
		BuildTier(ctx, r.Root, again, opts)
	}
}

// GeneratedSources lists the ExternalArtifacts ("ExternalArtifact/namespace/name") that the
// repository's ArtifactGenerators make, sorted: sources that exist in the cluster although no
// build declares them as objects.
func (r *Tree) GeneratedSources() []string {
	if r.ext == nil {
		return nil
	}
	return r.ext.Sources()
}

// reusable says whether a Reuse may record and reuse t: a tier built from the repository's
// own files. A ResourceSet's objects and an ExternalArtifact's build come from inputs the
// recorded reads do not cover (the generator's copy, the providers' inputs), so those tiers
// are always built.
func reusable(t *Tier) bool {
	return t.Owner == "" && t.Kustomization.SourceKind != artifactgen.Kind
}
