// Package artifactgen follows source-watcher's ArtifactGenerators (source.extensions.fluxcd.io)
// offline: which ExternalArtifacts a repository's generators make, whether one is made from
// the repository alone, and its files materialised with the generator's copy rules into a
// temporary directory a build can read. It never builds; the walk builds from what it makes.
package artifactgen

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// generatorGroup is the API group of source-watcher's ArtifactGenerator (Flux 2.7+).
const generatorGroup = "source.extensions.fluxcd.io"

// Kind is the source kind an ArtifactGenerator makes.
const Kind = "ExternalArtifact"

// maxArtifactBytes bounds what one Load copies into materialised artifacts: a generator is
// untrusted input and could ask for the whole repository a thousand times over.
const maxArtifactBytes = 512 << 20

// generatorSpec is the part of an ArtifactGenerator's spec (source.extensions.fluxcd.io/v1beta1)
// that says what each ExternalArtifact holds.
type generatorSpec struct {
	Sources []struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"sources"`
	PathPattern string           `json:"pathPattern"`
	Artifacts   []outputArtifact `json:"artifacts"`
}

// outputArtifact is one artifact a generator makes: its name and copy operations.
type outputArtifact struct {
	Name string   `json:"name"`
	Copy []copyOp `json:"copy"`
}

// copyOp is one copy operation of an output artifact: `from` "@alias/glob", `to` "@artifact/path".
type copyOp struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Exclude  []string `json:"exclude"`
	Strategy string   `json:"strategy"`
}

// Artifact is one ExternalArtifact an ArtifactGenerator of the repository makes.
type Artifact struct {
	// Artifact is "namespace/name" of the ExternalArtifact; Generator that of its generator.
	Artifact, Generator string
	// Copy are the copy operations; Sources the distinct sources ("Kind/namespace/name") they
	// read, sorted.
	Copy    []copyOp
	Sources []string
	// Why is set when the copy operations cannot be followed at all.
	Why string
}

// From reports why the artifact cannot be made from the repository whose source is primary,
// "" when it can: every copy operation must read that source.
func (g *Artifact) From(primary string) string {
	switch {
	case g.Why != "":
		return g.Why
	case len(g.Sources) != 1 || g.Sources[0] != primary:
		return fmt.Sprintf("its ArtifactGenerator %s copies from %s, not only from the repository's source %s", g.Generator, strings.Join(g.Sources, ", "), primary)
	}
	return ""
}

// Set is the ExternalArtifacts the repository's ArtifactGenerators make, and the temporary
// directories they were materialised into (removed by Close). Safe for concurrent use.
type Set struct {
	// root is the source root, where spec.pathPattern discovers directories.
	root   string
	mu     sync.Mutex
	byID   map[string]*Artifact // by namespace/name of the ExternalArtifact
	made   map[string]*madeArtifact
	budget int64
}

// madeArtifact is an artifact materialised once for every tier that builds from it.
type madeArtifact struct {
	once  sync.Once
	dir   string
	files map[string]string // artifact-relative file -> source-relative file
	err   error
}

// New is the set of artifacts the generators of the source root at root make, none yet.
func New(root string) *Set {
	return &Set{root: root, byID: map[string]*Artifact{}, made: map[string]*madeArtifact{}, budget: maxArtifactBytes}
}

// Add records the ArtifactGenerators among objs (artifacts already recorded are kept).
func (a *Set) Add(objs []*unstructured.Unstructured) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if gvk.Group != generatorGroup || gvk.Kind != "ArtifactGenerator" {
			continue
		}
		for _, g := range generatorArtifacts(o, a.root) {
			if _, seen := a.byID[g.Artifact]; !seen {
				a.byID[g.Artifact] = g
			}
		}
	}
}

// generatorArtifacts reads one ArtifactGenerator; with spec.pathPattern, its artifacts are
// those the directories of root that match the pattern make (expandPattern). A generator that
// does not decode yields nothing: the tiers that read its artifacts stay not covered.
func generatorArtifacts(o *unstructured.Unstructured, root string) []*Artifact {
	var spec generatorSpec
	raw, _, _ := unstructured.NestedMap(o.Object, "spec")
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &spec); err != nil {
		return nil
	}
	ns := o.GetNamespace()
	aliases := map[string]string{}
	for _, s := range spec.Sources {
		aliases[s.Alias] = s.Kind + "/" + orDefault(s.Namespace, ns) + "/" + s.Name
	}
	gen := ns + "/" + o.GetName()
	arts := spec.Artifacts
	if spec.PathPattern != "" {
		arts = expandPattern(spec.PathPattern, aliases, root, arts)
	}
	out := make([]*Artifact, 0, len(arts))
	for _, art := range arts {
		g := &Artifact{Artifact: ns + "/" + art.Name, Generator: gen, Copy: art.Copy}
		switch {
		case len(art.Copy) == 0:
			g.Why = "its ArtifactGenerator " + gen + " copies nothing into it"
		}
		srcs := map[string]bool{}
		for _, op := range art.Copy {
			alias, _, ok := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
			src := aliases[alias]
			switch {
			case g.Why != "":
			case !strings.HasPrefix(op.From, "@") || !ok:
				g.Why = fmt.Sprintf("its ArtifactGenerator %s copies from %q, which is not @alias/path", gen, op.From)
			case src == "":
				g.Why = fmt.Sprintf("its ArtifactGenerator %s copies from alias @%s, which it does not declare", gen, alias)
			case op.Strategy != "" && op.Strategy != strategyOverwrite && op.Strategy != strategyMerge:
				g.Why = fmt.Sprintf("its ArtifactGenerator %s copies %q with strategy %s, which is not followed", gen, op.From, op.Strategy)
			}
			if src != "" {
				srcs[src] = true
			}
		}
		g.Sources = slices.Sorted(maps.Keys(srcs))
		out = append(out, g)
	}
	return out
}

// SourcesThrough returns kss with each Kustomization whose source is an ExternalArtifact that
// a generator makes from one source alone shown with that source, so that PrimarySource sees
// a repository whose tiers all read artifacts generated from it as that repository.
func (a *Set) SourcesThrough(kss []kbuild.Kustomization) []kbuild.Kustomization {
	out := make([]kbuild.Kustomization, len(kss))
	for i, ks := range kss {
		out[i] = ks
		if g := a.Lookup(ks); g != nil && g.Why == "" && len(g.Sources) == 1 {
			out[i].SourceKind, out[i].SourceNamespace, out[i].SourceName = splitSource(g.Sources[0])
		}
	}
	return out
}

// Lookup returns the generated artifact a Kustomization reads, or nil.
func (a *Set) Lookup(ks kbuild.Kustomization) *Artifact {
	if ks.SourceKind != Kind {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byID[ks.SourceNamespace+"/"+ks.SourceName]
}

// NotCovered says why a Kustomization whose source is not primary (the repository's own)
// cannot be built from the repository, "" when it can: its source must be an ExternalArtifact
// that a generator makes from primary alone.
func (a *Set) NotCovered(ks kbuild.Kustomization, primary string) string {
	src := ks.Source()
	if primary == "" || src == primary {
		return ""
	}
	g := a.Lookup(ks)
	switch {
	case ks.SourceKind != Kind:
		return fmt.Sprintf("its source %s is not the repository's (%s)", src, primary)
	case g == nil:
		return fmt.Sprintf("its source %s is made by no ArtifactGenerator the repository declares", src)
	case g.From(primary) != "":
		return fmt.Sprintf("its source %s: %s", src, g.From(primary))
	}
	return ""
}

// Describe names the artifact and its generator for a tier built from it.
func (g *Artifact) Describe() string {
	return fmt.Sprintf("%s/%s, made by ArtifactGenerator %s", Kind, g.Artifact, g.Generator)
}

// Materialise copies g's files out of the source root into a temporary directory, once for
// every tier that builds from it; files maps each artifact-relative file to the
// source-relative file it came from. Close removes the directory.
func (a *Set) Materialise(g *Artifact) (dir string, files map[string]string, err error) {
	m := a.materialise(g)
	if m.err != nil {
		return "", nil, fmt.Errorf("materialising %s/%s from ArtifactGenerator %s: %w", Kind, g.Artifact, g.Generator, m.err)
	}
	return m.dir, m.files, nil
}

// materialise copies g's files out of root into a temporary directory, once.
func (a *Set) materialise(g *Artifact) *madeArtifact {
	a.mu.Lock()
	m := a.made[g.Artifact]
	if m == nil {
		m = &madeArtifact{}
		a.made[g.Artifact] = m
	}
	a.mu.Unlock()
	m.once.Do(func() {
		dir, err := os.MkdirTemp(tempBase(), "gitops-artifact-")
		if err == nil {
			dir, err = filepath.EvalSymlinks(dir)
		}
		if err != nil {
			m.err = err
			return
		}
		m.dir = dir
		c := &copier{budget: &a.budget, mu: &a.mu, files: map[string]string{}}
		m.err = c.run(a.root, dir, g.Copy)
		m.files = c.files
	})
	return m
}

// Close removes every materialised artifact.
func (a *Set) Close() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, m := range a.made {
		if m.dir != "" {
			_ = os.RemoveAll(m.dir)
		}
		delete(a.made, id)
	}
}

// tempBase prefers memory-backed /dev/shm, as snapshots do, unless $TMPDIR is set.
func tempBase() string {
	if os.Getenv("TMPDIR") == "" {
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			return "/dev/shm"
		}
	}
	return ""
}

func splitSource(s string) (kind, ns, name string) {
	parts := strings.SplitN(s, "/", 3)
	for len(parts) < 3 {
		parts = append(parts, "")
	}
	return parts[0], parts[1], parts[2]
}

// Fresh returns the same generators with no artifact materialised yet.
func (a *Set) Fresh() *Set {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := New(a.root)
	for id, g := range a.byID {
		b.byID[id] = g
	}
	return b
}

// Sources lists the ExternalArtifacts ("ExternalArtifact/namespace/name") the generators
// make, sorted.
func (a *Set) Sources() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	set := map[string]bool{}
	for id := range a.byID {
		set[Kind+"/"+id] = true
	}
	return slices.Sorted(maps.Keys(set))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
