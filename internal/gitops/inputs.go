package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/fluxcd/pkg/kustomize"
	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
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
func specFingerprint(ks kbuild.Kustomization) string {
	return fingerprint([]any{ks.Path, kbuild.Object(ks).Object})
}

// substFingerprint covers what kbuild's substitution looks up for obj in opts: for each
// substituteFrom reference, whether it is known to be missing (and why), else whether the
// ConfigMap is known and its data, or whether the Secret is known and its key names (never
// its values).
func substFingerprint(obj *unstructured.Unstructured, opts kbuild.Options) string {
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
		if why, gone := opts.Missing[ref.Kind+"/"+key]; gone {
			seen = append(seen, []any{ref.Kind, key, "missing", ref.Optional, why})
			continue
		}
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
