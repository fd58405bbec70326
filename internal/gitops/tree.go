// Package gitops walks a GitOps repository's Flux chain the way the cluster would meet it:
// Load builds an entry path (with kbuild), finds the Kustomizations in the build output
// (never in files as written) and builds theirs, level by level, into a Tree of Tiers, with
// the ExternalArtifacts a repository's generators make (artifactgen) and what its
// ResourceSets render (resourceset); BuildAll builds Kustomizations read from a cluster
// instead.
//
// What the walk leaves unbuilt is explicit, and separate from how a tier is built: a Reuse
// decides each build (LoadIncremental copies the tiers whose recorded inputs did not change
// since a base tree; LoadPair also leaves out those whose static inputs, read without
// building, did not), and a BuildCache answers builds from earlier runs. Every such
// shortcut gives the objects a full build gives, or is not taken.
package gitops

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/kubeforensics/suite/internal/artifactgen"
	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/kbuild"
	"github.com/kubeforensics/suite/internal/report"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Tier is one Flux Kustomization of a repository with what its spec.path built to.
type Tier struct {
	// Kustomization is the effective spec, as the build that yields it renders it.
	Kustomization kbuild.Kustomization
	// AppliedBy is the Kustomization (namespace/name) whose build yields this one; "" when
	// the entry path yields it and no Kustomization in the repository builds that path.
	AppliedBy string
	// Generated says which ArtifactGenerator made the ExternalArtifact the tier was built
	// from (the generator's copy rules applied to the repository), "" for a direct build.
	Generated string
	// Owner is "ResourceSet" for the objects a Flux Operator ResourceSet renders (see
	// resourceset_tree.go): Kustomization then stands for the ResourceSet, whose prune is always on.
	Owner string
	// Objects and Files are the build's objects and the repo-relative file of each.
	Objects []*unstructured.Unstructured
	Files   []string
	// Err is set when the path did not build; RemoteURLs names what an offline build lacked.
	Err        error
	RemoteURLs []string
	// Undefined are post-build variables referenced without a default that no source defines.
	// The objects were built with each one left as ${NAME}, where a controller without strict
	// substitution would apply "".
	Undefined []Undefined
	// Unresolved are ${VARS} an object's name or namespace still depends on after the build
	// (their values come from a Secret, which is never read).
	Unresolved []string
	// Defaulted are ${VARS} an object's name or namespace took the default of, although a
	// substituteFrom source that was not read could define them (kbuild.Result.Defaulted).
	Defaulted []string
	// NotCovered says why the tier was not built (its source is another repository).
	NotCovered string
	// Undecoded are the Kustomizations in this tier's build that did not decode, each a gap
	// (op decode, subject the Kustomization): the tiers they declare are not built, so what
	// they would prune is unknown.
	Undecoded []report.Gap
	// Unchanged says LoadIncremental copied the tier from the base tree, or LoadPair built it
	// at neither revision (NotBuilt): none of its inputs changed, so it builds to what it
	// built there and removes nothing.
	Unchanged bool
	// Inputs is what the build read (LoadOptions.RecordInputs); nil when not recorded.
	Inputs *Inputs
	// RenderedFrom, for a ResourceSet's tier, is everything its render reads: the ResourceSet
	// and every ResourceSetInputProvider the walk had found. The same at both revisions, the
	// operator renders the same objects from them, even when their inputs come from outside.
	RenderedFrom []*unstructured.Unstructured
}

// Undefined is a variable an object references and nothing defines.
type Undefined struct {
	Var    string
	Object string // Kind namespace/name
}

// ID is the tier's namespace/name, "ResourceSet/namespace/name" for a ResourceSet's.
func (t *Tier) ID() string {
	if t.Owner != "" {
		return t.Owner + "/" + t.Kustomization.ID()
	}
	return t.Kustomization.ID()
}

// FileAt is the repo-relative file of the tier's i-th object, "" when unknown.
func (t *Tier) FileAt(i int) string {
	if i < len(t.Files) {
		return t.Files[i]
	}
	return ""
}

// Tree is a repository's Flux chain as built from an entry path: the entry's build and every
// Kustomization it leads to.
type Tree struct {
	// Root is the directory paths are built from; Entry the path built first.
	Root, Entry string
	// FS are Root's files: on disk, or a revision read from git's objects.
	FS gitrev.Files
	// EntryBuild is what the entry path built to, with the Kustomizations it declares.
	EntryBuild *Tier
	// Tiers are keyed by namespace/name.
	Tiers map[string]*Tier
	// Source is the Flux source the repository is ("GitRepository/flux-system/flux-system"):
	// the root Kustomization's, else the one most Kustomizations of the entry use.
	Source string

	// FullBuild says why LoadIncremental built every tier; "" when it could reuse them.
	FullBuild string

	// opts are the build options of the last builds, substitution sources included.
	opts kbuild.Options
	// cache is the build cache as the builds of Root use it; nil without one.
	cache *tierCache
	// ext are the ArtifactGenerators the builds declare.
	ext *artifactgen.Set
}

// WithFiles builds tier id again exactly as before, this time recording each object's file,
// for a tree loaded with NoFiles; nil when the tree has no such tier.
func (r *Tree) WithFiles(ctx context.Context, id string) *Tier {
	t := r.Tiers[id]
	if t == nil {
		return nil
	}
	again := &Tier{Kustomization: t.Kustomization, AppliedBy: t.AppliedBy, Owner: t.Owner}
	opts := r.opts
	opts.NoFiles = false
	r.rebuild(ctx, again, t, opts)
	return again
}

// IDs returns the tier ids, sorted.
func (r *Tree) IDs() []string {
	out := make([]string, 0, len(r.Tiers))
	for id := range r.Tiers {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// BuildFailures lists the tiers whose path did not build, sorted.
func (r *Tree) BuildFailures() []*Tier {
	var out []*Tier
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.Err != nil {
			out = append(out, t)
		}
	}
	return out
}

// Built returns the tiers that built, in id order.
func (r *Tree) Built() []*Tier {
	var out []*Tier
	for _, id := range r.IDs() {
		if t := r.Tiers[id]; t.Err == nil && t.NotCovered == "" {
			out = append(out, t)
		}
	}
	return out
}

// LoadOptions controls Load.
type LoadOptions struct {
	// Entry is the path built first, relative to the root (e.g. clusters/prod).
	Entry string
	// AllowNetwork lets remote bases be fetched.
	AllowNetwork bool
	// Parallel bounds concurrent builds; 0 means GOMAXPROCS.
	Parallel int
	// Source is the Flux source the repository is, as "Kind/namespace/name"; BuildAll needs
	// it, Load finds it from the entry's Kustomizations when it is empty.
	Source string
	// NoFiles skips recording each object's file (see kbuild.Options.NoFiles).
	NoFiles bool
	// ConfigMaps are postBuild.substituteFrom ConfigMaps read elsewhere (from the cluster the
	// controller reads them from), by "namespace/name"; they win over those the builds declare.
	ConfigMaps map[string]map[string]string
	// RecordInputs records each tier's inputs (Tier.Inputs), which LoadIncremental needs of
	// a base tree.
	RecordInputs bool
	// Cache, when set, keeps tier builds between runs (see BuildCache).
	Cache *BuildCache
	// Files are the root's files when they are not read from the disk (a revision read from
	// git's objects, whose Root is the root); nil reads the disk.
	Files gitrev.Files
}

// Load builds the entry path, then, level by level, the path of every Kustomization the builds
// yield, until no new one appears: every Flux object is found in build output, never in a file
// as written, so a partial Kustomization used as a patch is not one and rendered paths and
// timeouts are the effective ones. A Kustomization whose source differs from the repository's
// (a tenant's own repository) is listed as not covered, not built. Tiers that use
// postBuild.substituteFrom are built again at the end with every ConfigMap and Secret the whole
// repository declares, since those are often defined in another tier. Only a failure of the
// entry path itself is returned as an error; a tier that does not build is recorded on it.
func Load(ctx context.Context, root string, opts LoadOptions) (*Tree, error) {
	return load(ctx, root, opts, recorder(root, opts), nil)
}

// load is Load with what it may leave unbuilt made explicit: reuse decides each build of a
// tier that reads only the repository's files, and skip, LoadPair's reader of the root
// without building (nil otherwise), lends the builds its walk of the root and the cache its
// reader.
func load(ctx context.Context, root string, opts LoadOptions, reuse Reuse, skip *staticSkip) (*Tree, error) {
	entry := kbuild.CleanPath(opts.Entry)
	var scan *kbuild.Root
	var static *staticReader
	if skip != nil {
		scan, static = skip.scan, skip.reader
	}
	bopts := rootOptions(ctx, root, opts, scan)
	eb := kbuild.BuildPath(ctx, root, entry, bopts)
	if eb.Err != nil {
		return nil, fmt.Errorf("building entry path %s: %w", entry, eb.Err)
	}
	kss, err := eb.Kustomizations()
	if err != nil {
		return nil, fmt.Errorf("entry path %s: %w", entry, err)
	}
	if !declaresRoot(kss, entry) {
		if root, err := fluxInstanceRoot(eb.Objects, entry); err != nil {
			return nil, fmt.Errorf("entry path %s: %w", entry, err)
		} else if root != nil {
			kss = append(kss, *root) // the root Kustomization the FluxInstance syncs the entry with
		}
	}
	r := &Tree{Root: root, FS: opts.filesOf(root), Entry: entry, Tiers: map[string]*Tier{},
		EntryBuild: &Tier{Kustomization: kbuild.Kustomization{Path: entry}, Objects: eb.Objects, Files: eb.Files}}
	parent := ""
	for _, ks := range kss {
		if ks.Path == entry {
			parent = ks.ID() // the root Kustomization is in the repository
		}
	}
	ext := artifactgen.New(root)
	if err := onDiskFor(ctx, bopts.FilesOf(root), eb.Objects); err != nil {
		return nil, err
	}
	ext.Add(eb.Objects)
	r.Source = opts.Source
	if r.Source == "" {
		files := bopts.FilesOf(root)
		r.Source = PrimarySource(ext.SourcesThrough(kss), entry, func(p string) bool {
			fi, err := files.Stat(filepath.Join(root, filepath.FromSlash(kbuild.CleanPath(p))))
			return err == nil && fi.IsDir()
		})
	}
	l := &loader{root: root, parallel: opts.Parallel, bopts: bopts, primary: r.Source, extra: opts.ConfigMaps, ext: ext, reuse: reuse,
		cache: opts.Cache.forRoot(root, static, bopts)}
	defer ext.Close()
	level := make([]*Tier, 0, len(kss))
	for _, ks := range kss {
		ap := parent
		if ks.ID() == parent {
			ap = ""
		}
		level = append(level, &Tier{Kustomization: ks, AppliedBy: ap})
	}
	all := append([]*unstructured.Unstructured(nil), eb.Objects...)
	if len(level) == 0 {
		// An entry that declares no Kustomization may still declare ResourceSets (a
		// FluxInstance's sync path often does): they are the first level.
		level = l.resourceSetTiers(r, all)
	}
	all, err = l.walk(ctx, r, level, all)
	if err != nil {
		return nil, err
	}
	if all, err = l.walk(ctx, r, l.redeclared(r, l.substituteAgain(ctx, r, all), all), all); err != nil {
		return nil, err
	}
	if _, err = l.walk(ctx, r, l.coveredLate(r), all); err != nil {
		return nil, err
	}
	r.opts, r.cache, r.ext = l.bopts, l.cache, ext
	return r, nil
}

// rootOptions are the options of every build under root: one walk of the tree (scan, when
// the caller already made it) tells whether it holds symlinks and where its ignore rules are.
func rootOptions(ctx context.Context, root string, opts LoadOptions, scan *kbuild.Root) kbuild.Options {
	if scan == nil {
		scan = kbuild.ScanFiles(ctx, opts.filesOf(root))
	}
	return kbuild.Options{AllowNetwork: opts.AllowNetwork, NoFiles: opts.NoFiles, Root: scan}
}

// filesOf are root's files: Files when they are root's, else the disk's.
func (o LoadOptions) filesOf(root string) gitrev.Files {
	if o.Files != nil && o.Files.Root() == root {
		return o.Files
	}
	return gitrev.Disk(root)
}

// BuildAll builds the paths of Kustomizations known from elsewhere (a cluster) under root: no
// entry, no walk. Those whose source is not opts.Source are not covered; those that use
// postBuild.substituteFrom are built again with every ConfigMap and Secret the builds declare.
func BuildAll(ctx context.Context, root string, kss []kbuild.Kustomization, opts LoadOptions) *Tree {
	r := &Tree{Root: root, FS: opts.filesOf(root), Tiers: map[string]*Tier{}, Source: opts.Source, EntryBuild: &Tier{}}
	bopts := rootOptions(ctx, root, opts, nil)
	l := &loader{root: root, parallel: opts.Parallel, bopts: bopts, primary: opts.Source, extra: opts.ConfigMaps, ext: artifactgen.New(root),
		reuse: buildEvery{}, cache: opts.Cache.forRoot(root, nil, bopts)}
	defer l.ext.Close()
	l.sources(ctx, nil)
	tiers := make([]*Tier, 0, len(kss))
	for _, ks := range kss {
		t := &Tier{Kustomization: ks}
		r.Tiers[ks.ID()] = t
		tiers = append(tiers, t)
	}
	l.buildAll(ctx, tiers)
	var all []*unstructured.Unstructured
	for _, t := range tiers {
		all = append(all, t.Objects...)
	}
	l.substituteAgain(ctx, r, all)
	r.opts, r.cache, r.ext = l.bopts, l.cache, l.ext
	return r
}
