package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/kustomize"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/konfig"
)

// Inputs is what one tier's build depended on (LoadOptions.RecordInputs): every path of the
// root the build read, probed or listed, the Kustomization object it was built from, and what
// its post-build substitution read. A build is a deterministic function of these, so a tier
// whose inputs are all unchanged at another revision builds to the same objects there.
type Inputs struct {
	// Paths are root-relative paths the build read or listed, sorted: a change at, below or
	// above one of them may change the build.
	Paths []string
	// Probed are root-relative paths the build only asked about (does it exist, is it a
	// directory), with what each was: "dir", "file" or "" (nothing). A change at or below
	// one matters only when that answer changes.
	Probed map[string]string
	// Incomplete says why the recorded reads cannot be trusted; such a tier is always built.
	Incomplete string

	spec string
	// subst fingerprints the substitution sources the walk's build (0) and the final
	// build with every source (1) read.
	subst [2]string
	// walk is the walk's build output, kept only when the final build read other
	// substitution sources: the walk found the tier's children and sources in it.
	walk *walkOutput
	// skipped says no revision built the tier (Tier.NotBuilt).
	skipped bool
}

// walkOutput is a tier's output as the level-by-level walk saw it.
type walkOutput struct {
	objects []*unstructured.Unstructured
	files   []string
}

// readLog is the set of paths one build touched on disk, safe for kustomize's concurrent use.
type readLog struct {
	root   string
	mu     sync.Mutex
	read   map[string]bool
	probed map[string]string
	bad    string
}

func newReadLog(root string) *readLog {
	return &readLog{root: filepath.Clean(mustAbs(root)), read: map[string]bool{}, probed: map[string]string{}}
}

// rel turns a path kustomize used into a root-relative one; ok is false (and the log
// incomplete) for a path outside the root or inside .git, which no diff describes.
func (l *readLog) rel(p string) (string, bool) {
	r, err := filepath.Rel(l.root, mustAbs(p))
	r = filepath.ToSlash(r)
	switch {
	case err != nil || !(r == "." || filepath.IsLocal(r)):
		l.fail(fmt.Sprintf("the build read %s, outside the root", p))
	case r == ".git" || strings.HasPrefix(r, ".git/"):
		l.fail(fmt.Sprintf("the build read %s, git's own metadata, which no diff describes", r))
	default:
		return r, true
	}
	return "", false
}

// content records a read of p's content: of a directory, kustomize's attempt to read a
// resource as a file before it tries it as a kustomization, which only learns it is one.
func (l *readLog) content(p string) {
	if pathKind(p) == "dir" {
		l.probe(p)
	} else {
		l.add(p)
	}
}

// add records a read or listing of p.
func (l *readLog) add(p string) {
	if r, ok := l.rel(p); ok {
		l.mu.Lock()
		l.read[r] = true
		l.mu.Unlock()
	}
}

// probe records a question about p's existence, with the answer.
func (l *readLog) probe(p string) {
	r, ok := l.rel(p)
	if !ok {
		return
	}
	kind := pathKind(filepath.Join(l.root, filepath.FromSlash(r)))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.probed[r] = kind
}

// pathKind is what p is on disk: "dir", "file" (anything else that exists) or "".
func pathKind(p string) string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return "dir"
	}
	return "file"
}

func (l *readLog) fail(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bad == "" {
		l.bad = why
	}
}

// generatorReads records what kustomize-controller's generator reads of dir outside the
// build's file system: the path itself, its kustomization file under each recognised name,
// the whole directory when none exists (the generator walks it to write one), and the
// Kustomization's spec.components, whose existence it checks.
func (l *readLog) generatorReads(dir string, obj *unstructured.Unstructured) {
	if l == nil {
		return
	}
	l.probe(dir)
	found := false
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, name)
		if pathKind(p) == "file" {
			l.add(p) // the generator reads it
			found = true
		} else {
			l.probe(p)
		}
	}
	if !found {
		l.add(dir)
	}
	components, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "components")
	for _, c := range components {
		l.probe(filepath.Join(dir, c))
	}
}

// inputs adds what the log holds to in, sorted.
func (l *readLog) inputs(in *Inputs) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range in.Paths {
		l.read[p] = true
	}
	for p, kind := range in.Probed {
		l.probed[p] = kind
	}
	in.Paths, in.Probed = slices.Sorted(maps.Keys(l.read)), l.probed
	if in.Incomplete == "" {
		in.Incomplete = l.bad
	}
}

// fingerprint hashes v's JSON; "" stands for a value that cannot be hashed, which matches
// nothing (see unchangedInputs).
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// specFingerprint covers everything of a Kustomization a build uses: the whole object (the
// generator reads its spec, substitution its postBuild, commonMetadata its labels) and the
// path it is built at.
func specFingerprint(ks Kustomization) string {
	obj := ks.Object
	if obj == nil {
		obj = minimalObject(ks)
	}
	return fingerprint([]any{ks.Path, obj.Object})
}

// substFingerprint covers what newSubstituter looks up for obj in opts: for each
// substituteFrom reference, whether the ConfigMap is known and its data, or whether the
// Secret is known and its key names (never its values).
func substFingerprint(obj *unstructured.Unstructured, opts BuildOptions) string {
	if obj == nil {
		return fingerprint(nil)
	}
	refs, _, err := unstructured.NestedSlice(obj.Object, "spec", "postBuild", "substituteFrom")
	if err != nil {
		return ""
	}
	var seen []any
	for _, raw := range refs {
		m, ok := raw.(map[string]any)
		var ref kustomize.SubstituteReference
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ref) != nil {
			return ""
		}
		key := obj.GetNamespace() + "/" + ref.Name
		data, known := opts.ConfigMaps[key]
		if ref.Kind == "Secret" {
			keys := opts.SecretKeys[key]
			seen = append(seen, []any{ref.Kind, key, keys != nil, keys})
			continue
		}
		seen = append(seen, []any{ref.Kind, key, known, sortedPairs(data)})
	}
	return fingerprint(seen)
}

func sortedPairs(m map[string]string) [][2]string {
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
