package gitops

import (
	"strings"

	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fluxInstanceRoot is the root Kustomization a Flux Operator FluxInstance among objs generates
// to sync entry (its spec.sync.path), nil when none does. The operator creates the source and
// the Kustomization in the FluxInstance's namespace, named spec.sync.name or, when that is
// empty, after the namespace, "to match flux bootstrap" (flux-operator
// docs/api/v1/fluxinstance.md, "Sync configuration"); bootstrap's root prunes, and so does
// this one: what the entry stops declaring is judged as pruned, never left unjudged.
func fluxInstanceRoot(objs []*unstructured.Unstructured, entry string) (*kbuild.Kustomization, error) {
	for _, o := range objs {
		if o.GetKind() != "FluxInstance" || !strings.HasPrefix(o.GetAPIVersion(), "fluxcd.controlplane.io/") {
			continue
		}
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "kind")
		path, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "path")
		name, _, _ := unstructured.NestedString(o.Object, "spec", "sync", "name")
		if kind == "" || kbuild.CleanPath(path) != entry {
			continue
		}
		if name == "" {
			name = o.GetNamespace()
		}
		ks := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
			"kind":       "Kustomization",
			"metadata":   map[string]any{"name": name, "namespace": o.GetNamespace()},
			"spec": map[string]any{
				"interval":  "10m",
				"path":      entry,
				"prune":     true,
				"sourceRef": map[string]any{"kind": kind, "name": name},
			},
		}}
		kss, err := kbuild.KustomizationsIn([]*unstructured.Unstructured{ks})
		if err != nil || len(kss) != 1 {
			return nil, err
		}
		return &kss[0], nil
	}
	return nil, nil
}

// declaresRoot says whether one of kss builds entry itself: the root Kustomization is then
// in the repository, and its source is the repository's.
func declaresRoot(kss []kbuild.Kustomization, entry string) bool {
	for _, ks := range kss {
		if kbuild.CleanPath(ks.Path) == entry {
			return true
		}
	}
	return false
}
