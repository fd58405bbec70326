package gitops

import (
	"strings"

	"github.com/kubeforensics/suite/internal/kbuild"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// fluxInstanceSource is the source a Flux Operator FluxInstance among objs generates to sync
// entry (its spec.sync.path), as "Kind/namespace/name": the operator creates the source and
// the root Kustomization in the FluxInstance's namespace, named spec.sync.name or, when that
// is empty, after the namespace (flux-operator docs/api/v1/fluxinstance.md, "Sync
// configuration"). "" when no FluxInstance syncs entry.
func fluxInstanceSource(objs []*unstructured.Unstructured, entry string) string {
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
		return kind + "/" + o.GetNamespace() + "/" + name
	}
	return ""
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
