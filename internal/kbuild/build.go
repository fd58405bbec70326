// Package kbuild builds one path of a source root exactly as kustomize-controller does, and
// nothing else: the controller's own generator (github.com/fluxcd/pkg/kustomize) writes the
// Kustomization's spec into the path's kustomization file (one is generated for a plain
// directory, listing what source-controller's artifact holds), kustomize builds it on a file
// system confined to the root with plugins disabled and no network unless allowed, then
// post-build substitution and spec.commonMetadata run. A build never writes to the tree: the
// generated file lives in an in-memory layer, so builds of one root may run concurrently.
// SOPS-encrypted Secrets are built as the YAML they are and never decrypted.
//
// What a caller that builds many paths of one root shares is explicit: Root, the one walk of
// the tree (its symlinks and .sourceignore rules), and ReadLog, the record of every path a
// build read, which the walk's reuse of builds rests on.
package kbuild

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	ssautil "github.com/fluxcd/pkg/ssa/utils"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/kubeforensics/suite/internal/gitrev"
	"github.com/kubeforensics/suite/internal/progress"
)

// ErrPathNotFound means a Kustomization's spec.path does not exist in the snapshot.
var ErrPathNotFound = errors.New("kustomization path not found")

// ErrNeedsNetwork means a build refers to remote resources or bases and the network was not
// allowed; Result.RemoteURLs names them.
var ErrNeedsNetwork = errors.New("remote resources cannot be built offline")

// Options controls what a build may reach.
type Options struct {
	// AllowNetwork lets remote resources and bases be fetched. Off by default: a path that
	// needs them fails with ErrNeedsNetwork before anything is fetched.
	AllowNetwork bool
	// ConfigMaps resolves postBuild.substituteFrom offline: ConfigMap data by
	// "namespace/name". Secret values are never read; variables a Secret (or a ConfigMap
	// missing here and from SecretKeys) may define are left as ${NAME} and reported when an
	// identity needs them.
	ConfigMaps map[string]map[string]string
	// SecretKeys names the keys of postBuild.substituteFrom Secrets by "namespace/name",
	// without their values (see SubstitutionSources). Variables from these keys stay ${NAME};
	// with every source known, a variable no source defines fails the build like the
	// controller's strict substitution, unless it has a default.
	SecretKeys map[string][]string
	// Missing are postBuild.substituteFrom sources known to be absent from the cluster, by
	// "Kind/namespace/name", each with why it is known (the change prunes it). As
	// kustomize-controller's LoadVariables, a reference to one fails the build unless it is
	// optional, and an optional one defines nothing; it wins over ConfigMaps and SecretKeys.
	Missing map[string]string

	// NoFiles skips recording each object's file (Result.Files stays empty unless the
	// kustomization asks for origin annotations itself): asking kustomize for them costs a
	// fifth of a build. gitops.Tree.WithFiles builds one tier again with them.
	NoFiles bool

	// Root is the walk of root that its builds share (ScanRoot): its symlinks choose the
	// file system (a tree without any is read on the lexical one, confinedFS) and its
	// .sourceignore rules what the artifact holds. nil, or the walk of another directory,
	// and Build walks root itself.
	Root *Root
	// Reads, when set, logs every path the build reads, lists or probes (ReadLog).
	Reads *ReadLog
}

// Result is what one path built to.
type Result struct {
	// Objects are the objects Flux would apply, in kustomize's output order.
	Objects []*unstructured.Unstructured
	// Files runs parallel to Objects: the repo-relative file each object came from, or ""
	// when kustomize generated it or it came from a remote resource.
	Files []string
	// Err is set when the path did not build; Objects is then empty.
	Err error
	// RemoteURLs are the remote resources that made an offline build impossible (Err is set
	// too, wrapping ErrNeedsNetwork).
	RemoteURLs []string
	// Unresolved are the ${VARS} left unresolved that an object's name or namespace depends
	// on, sorted.
	Unresolved []string
	// Defaulted are the ${VARS} an object's name or namespace took the default of although a
	// substituteFrom source that was not read (a Secret) could define them, sorted.
	Defaulted []string
	// Work is what kustomize read to build it, counted against the limits on a build's work
	// (MaxKustomizationLoads and the others).
	Work Work
}

// Kustomizations returns the Flux Kustomizations among the built objects, with the file
// each was found in.
func (r *Result) Kustomizations() ([]Kustomization, error) {
	return KustomizationsWithFiles(r.Objects, r.Files)
}

// BuildPath builds a plain entry path such as clusters/prod, for which no Flux object exists
// in the repo (a bootstrap tool created it in the cluster): it is built as a Kustomization
// with only spec.path set.
func BuildPath(ctx context.Context, root, p string, opts Options) *Result {
	return Build(ctx, root, Kustomization{Path: CleanPath(p)}, opts)
}

// Build builds root/ks.Path exactly like kustomize-controller (ks.Path wins over the object's
// spec.path, so a caller may map paths onto another source root): the Kustomization's spec is
// written into the path's kustomization.yaml by the controller's own generator (one is
// generated for a plain directory), kustomize builds it on a file system confined to root
// with plugins disabled, then postBuild substitution runs (strict on undefined variables, as
// the controller is by default) and spec.commonMetadata is applied.
//
// The snapshot is never written to: the generated kustomization.yaml lives in an in-memory
// layer over the read-only tree, so builds of the same root may run concurrently.
// SOPS-encrypted Secrets are built as the YAML they are and never decrypted.
//
// kustomize cannot be interrupted, so the build runs in a goroutine that Build stops waiting
// for when ctx ends: it returns at once with ctx's cause, and the abandoned build, whose every
// further read is refused, ends at its next one (and leaves the network gate). What kustomize
// reads is counted against the limits on a build's work (MaxKustomizationLoads and the
// others): past one, the build fails with ErrBuildBound. While it runs, a progress.Tracker in
// ctx names it.
func Build(ctx context.Context, root string, ks Kustomization, opts Options) *Result {
	if err := ctx.Err(); err != nil {
		return &Result{Err: context.Cause(ctx)}
	}
	what := "entry path " + CleanPath(ks.Path)
	if ks.Name != "" {
		what = fmt.Sprintf("Kustomization %s (path %s)", ks.ID(), CleanPath(ks.Path))
	}
	defer progress.Begin(ctx, "building %s", what)()
	done := make(chan *Result, 1)
	go func() { done <- build(ctx, root, ks, opts) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
		return &Result{Err: fmt.Errorf("building %s: stopped: %w", what, context.Cause(ctx))}
	}
}

func build(ctx context.Context, root string, ks Kustomization, opts Options) *Result {
	res := &Result{}
	defer netGate.enter(ctx, opts.AllowNetwork)()
	obj := ks.Object
	if obj == nil {
		obj = MinimalObject(ks)
	}
	rel := CleanPath(ks.Path)
	dir := filepath.Join(root, filepath.FromSlash(rel))
	if opts.Reads != nil {
		opts.Reads.generatorReads(dir, obj)
	}
	if fi, err := opts.FilesOf(root).Stat(dir); err != nil || !fi.IsDir() {
		res.Err = fmt.Errorf("%w: %s", ErrPathNotFound, rel)
		return res
	}
	fs, addedOrigins, err := generate(ctx, root, dir, obj, opts)
	if err != nil {
		res.Err = fmt.Errorf("generating kustomization for %s: %w", rel, err)
		return res
	}
	urls, customSchema, local := scanTree(fs, dir)
	if !opts.AllowNetwork {
		if len(urls) > 0 {
			if opts.Reads != nil {
				// The build does not run, so its reads are not logged: what it would read
				// lies under these, and a change there must not find this tier unchanged.
				for _, p := range local {
					opts.Reads.add(p)
				}
			}
			res.RemoteURLs = urls
			res.Err = fmt.Errorf("building %s: %w: %s", rel, ErrNeedsNetwork, strings.Join(urls, ", "))
			return res
		}
	}
	work := newBudget(ctx, mustAbs(root))
	deprecated := newDeprecationFS(fs, root)
	m, err := kustomizeBuild(budgetFS{FileSystem: deprecated, b: work}, dir, customSchema)
	deprecated.report(ctx)
	res.Work = work.counted()
	if stopped := work.err(); stopped != nil {
		// Whatever kustomize made of the refused read, the limit (or the stop) is the reason.
		res.Err = fmt.Errorf("building %s: %w", rel, stopped)
		return res
	}
	if urls := refusedURLs(err); len(urls) > 0 && !opts.AllowNetwork {
		res.RemoteURLs = urls
		res.Err = fmt.Errorf("building %s: %w: %s", rel, ErrNeedsNetwork, strings.Join(urls, ", "))
		return res
	}
	if err != nil {
		res.Err = fmt.Errorf("kustomize build failed for %s: %w", rel, inRoot(err, root))
		return res
	}
	if err := collect(ctx, m, obj, rel, addedOrigins, opts, res); err != nil {
		res.Objects, res.Files, res.Unresolved = nil, nil, nil
		res.Err = fmt.Errorf("building %s: %w", rel, err)
	}
	return res
}

// FilesOf are the files of root: those of Root when it is root's walk, else the disk's.
func (o Options) FilesOf(root string) gitrev.Files {
	if o.Root != nil && o.Root.Dir == root && o.Root.Files != nil {
		return o.Root.Files
	}
	return gitrev.Disk(root)
}

// Object is the Kustomization object a build of ks hands the generator: ks.Object, or
// MinimalObject when the repository holds none.
func Object(ks Kustomization) *unstructured.Unstructured {
	if ks.Object != nil {
		return ks.Object
	}
	return MinimalObject(ks)
}

// MinimalObject stands in for a Flux object that is not in the repo: only spec.path, so the
// generator adds nothing to the path's own kustomization.
func MinimalObject(ks Kustomization) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"path": ks.Path}}}
	u.SetAPIVersion(kustomizeGroup + "/v1")
	u.SetKind("Kustomization")
	u.SetName(ks.Name)
	u.SetNamespace(ks.Namespace)
	return u
}

// generate runs the controller's generator over dir and returns a file system on which
// kustomize sees its output: the on-disk tree confined to root (with the temp dirs of remote
// clones allowed only when the network is), under an in-memory layer that holds the written
// kustomization file. It also turns on origin annotations so each object's file is known;
// addedOrigins says whether they must be removed again.
func generate(ctx context.Context, root, dir string, obj *unstructured.Unstructured, opts Options) (filesys.FileSystem, bool, error) {
	sc := opts.Root
	if sc == nil || sc.Dir != root {
		sc = ScanRoot(ctx, root) // an artifact materialised elsewhere has links and rules of its own
	}
	if err := ctx.Err(); err != nil {
		return nil, false, context.Cause(ctx)
	}
	disk, err := confinedFS(ctx, root, opts.AllowNetwork, sc.Links, sc.Files)
	if err != nil {
		return nil, false, err
	}
	ign := sc.ignore
	manifest, kfile, err := generateManifest(disk, root, dir, obj, ign, sc.Files)
	if err != nil {
		return nil, false, err
	}
	ign.record(opts.Reads, dir)
	added := false
	if !opts.NoFiles {
		if manifest, added, err = withOriginAnnotations(manifest); err != nil {
			return nil, false, err
		}
	}
	if opts.Reads != nil {
		disk = recordingFS{FileSystem: disk, log: opts.Reads}
	}
	fs := overlayFS(disk, root)
	if err := fs.WriteFile(kfile, manifest); err != nil {
		if rel, ok := under(filepath.Clean(root), filepath.Dir(kfile)); ok {
			if name := illegalRootName(rel); name != "" {
				return nil, false, fmt.Errorf("the path %s has a directory name (%q) that kustomize's in-memory file system, which holds the generated kustomization.yaml, refuses (it allows only letters, digits and - _ . :), so it is not built here; a directory without other characters builds: %w", filepath.ToSlash(rel), name, err)
			}
		}
		return nil, false, err
	}
	return fs, added, nil
}

// illegalRootName is the first directory name on path p that kustomize's in-memory file
// system refuses to create (kyaml filesys: only [a-zA-Z0-9-_.:]), "" when there is none.
// Names above the repository's root are the checkout's own and are kept out of that file
// system (overlayFS); a name inside it that the generated file's directory needs is refused,
// naming it.
func illegalRootName(p string) string {
	for _, name := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
		legal := func(r rune) bool {
			return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)
		}
		if strings.IndexFunc(name, func(r rune) bool { return !legal(r) }) >= 0 {
			return name
		}
	}
	return ""
}

// withOriginAnnotations adds "originAnnotations" to the kustomization's buildMetadata. It is
// added to the buildMetadata already there rather than set through spec.buildMetadata,
// which would replace the file's own list and change the output.
func withOriginAnnotations(manifest []byte) ([]byte, bool, error) {
	var k kustypes.Kustomization
	if err := yaml.Unmarshal(manifest, &k); err != nil {
		return nil, false, err
	}
	for _, m := range k.BuildMetadata {
		if m == kustypes.OriginAnnotations {
			return manifest, false, nil
		}
	}
	k.BuildMetadata = append(k.BuildMetadata, kustypes.OriginAnnotations)
	out, err := yaml.Marshal(k)
	return out, true, err
}

// collect turns the built resources into objects the way the controller's build() and
// apply() do: every resource needs apiVersion, kind and name; postBuild runs on each;
// commonMetadata is set on all.
func collect(ctx context.Context, m resmap.ResMap, obj *unstructured.Unstructured, rel string, stripOrigins bool, opts Options, res *Result) error {
	sub, err := newSubstituter(obj, opts)
	if err != nil {
		return err
	}
	if err := sub.bound(ctx, m.Resources()); err != nil {
		return err
	}
	unresolved, defaulted := map[string]bool{}, map[string]bool{}
	for _, r := range m.Resources() {
		if r.GetName() == "" || r.GetKind() == "" || r.GetApiVersion() == "" {
			// Name the file, never the content: it may be a Secret.
			return fmt.Errorf("a resource without apiVersion, kind or name (from %s)", unnamedOrigin(r.GetAnnotations()[originAnnotation], rel, opts.NoFiles))
		}
		if err := sub.run(ctx, r, unresolved, defaulted); err != nil {
			return fmt.Errorf("post build failed for '%s/%s': %w", r.GetGvk(), r.GetName(), err)
		}
		v, err := fromNode(r.YNode())
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			return fmt.Errorf("decoding %s/%s: %v", r.GetKind(), r.GetName(), orDefault(fmt.Sprint(err), "not a mapping"))
		}
		u := &unstructured.Unstructured{Object: m}
		res.Objects = append(res.Objects, u)
		res.Files = append(res.Files, fileOf(u, rel, stripOrigins))
	}
	setCommonMetadata(obj, res.Objects)
	res.Unresolved = slices.Sorted(maps.Keys(unresolved))
	if len(defaulted) > 0 {
		res.Defaulted = slices.Sorted(maps.Keys(defaulted))
	}
	return nil
}

// unnamedOrigin says where a resource kustomize built came from for an error: its
// repo-relative file from the origin annotation raw; a generator when origins were recorded and
// it has none; that the build did not record files when noFiles (the gate's fast builds).
func unnamedOrigin(raw, rel string, noFiles bool) string {
	if p, local := originPath(raw); raw != "" && local && p != "" {
		return CleanPath(path.Join(rel, p))
	}
	if raw != "" {
		return strings.TrimSpace(raw)
	}
	if noFiles {
		return "a file the build of " + rel + " reads; this build records no files, `kubectl flux-chain --repo` with the same path names it"
	}
	return "a generator"
}

// fileOf reads the object's origin annotation as a repo-relative file, removing the
// annotation when only this package asked for it.
func fileOf(u *unstructured.Unstructured, rel string, strip bool) string {
	ann := u.GetAnnotations()
	raw, ok := ann[originAnnotation]
	if !ok {
		return ""
	}
	if strip {
		delete(ann, originAnnotation)
		if len(ann) == 0 {
			ann = nil
		}
		u.SetAnnotations(ann)
	}
	p, local := originPath(raw)
	if !local || p == "" {
		return ""
	}
	return CleanPath(path.Join(rel, p))
}

// setCommonMetadata applies spec.commonMetadata to every object with the controller's own
// function (fluxcd/pkg/ssa), as kustomize-controller does after the build: its labels and
// annotations win over the objects' own.
func setCommonMetadata(obj *unstructured.Unstructured, objs []*unstructured.Unstructured) {
	labels, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "commonMetadata", "labels")
	annotations, _, _ := unstructured.NestedStringMap(obj.Object, "spec", "commonMetadata", "annotations")
	if len(labels) == 0 && len(annotations) == 0 {
		return
	}
	ssautil.SetCommonMetadata(objs, labels, annotations)
}

// originPath reads the path of kustomize's origin annotation, a small YAML mapping such as
// "path: apps/claim.yaml\n" or, for a remote file, with a "repo:" line too; local is false
// then. Only those two plain fields are read, line by line (a YAML decode per object cost more
// than the rest of collecting it); anything unusual falls back to the YAML decoder.
func originPath(raw string) (p string, local bool) {
	local = true
	for _, line := range strings.Split(strings.TrimSpace(raw), "\n") {
		key, val, ok := strings.Cut(line, ": ")
		switch {
		case !ok || strings.ContainsAny(val, "'\"{[&*!|>#"):
			return originPathYAML(raw)
		case key == "path":
			p = val
		case key == "repo":
			local = false
		}
	}
	return p, local
}

func originPathYAML(raw string) (string, bool) {
	var origin struct {
		Path string `json:"path"`
		Repo string `json:"repo"`
	}
	if err := yaml.Unmarshal([]byte(raw), &origin); err != nil {
		return "", false
	}
	return origin.Path, origin.Repo == ""
}
