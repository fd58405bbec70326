package cluster

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// KubeConfigTarget names the cluster a Flux object acts on when it is not the one the object
// lives on: its spec.kubeConfig (fluxcd/pkg apis/meta KubeConfigReference, which a
// Kustomization and a HelmRelease both carry) names a Secret or a ConfigMap in the object's own
// namespace, and the controller applies or installs through it on that cluster. The result is
// "kubeConfig Secret namespace/name" (or ConfigMap); "" when the object acts on its own cluster.
func KubeConfigTarget(o *unstructured.Unstructured) string {
	if o == nil {
		return ""
	}
	for _, ref := range []struct{ field, kind string }{{"secretRef", "Secret"}, {"configMapRef", "ConfigMap"}} {
		if name, _, _ := unstructured.NestedString(o.Object, "spec", "kubeConfig", ref.field, "name"); name != "" {
			return "kubeConfig " + ref.kind + " " + o.GetNamespace() + "/" + name
		}
	}
	return ""
}
