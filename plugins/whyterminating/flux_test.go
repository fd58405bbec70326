package whyterminating_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A Flux Kustomization deleted while no kustomize-controller runs keeps finalizers.fluxcd.io:
// the known finalizer names its controller, reports it absent, and says what stripping it leaves.
func TestFluxFinalizerWithoutController(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	createNamespace(t, "flux-gone")
	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": "tenant", "namespace": "flux-gone", "finalizers": []any{"finalizers.fluxcd.io"}},
		"spec": map[string]any{"interval": "10m", "path": "./tenant", "prune": true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
	}}
	ri := kc.Dynamic.Resource(gvr).Namespace("flux-gone")
	if _, err := ri.Create(ctx, ks, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = ri.Patch(ctx, "tenant", "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	if err := ri.Delete(ctx, "tenant", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "kustomizations.kustomize.toolkit.fluxcd.io", "tenant", "-n", "flux-gone")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"kustomizations.kustomize.toolkit.fluxcd.io/tenant -n flux-gone Terminating for",
		"finalizer finalizers.fluxcd.io",
		"removed by: Flux kustomize-controller",
		"controller: none found",
		"Reinstall the controller (Flux kustomize-controller)",
		"left behind: objects this Flux object applied are left in the cluster unmanaged",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
}

// finalizers.fluxcd.io on a source: stripping it loses the source's stored artifact, not
// "objects this Flux object applied" (a source applies nothing).
func TestFluxSourceFinalizerCost(t *testing.T) {
	needEnv(t)
	gvr := schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
	createNamespace(t, "flux-src-gone")
	createStuck(t, gvr, "GitRepository", "flux-src-gone", "podinfo", "finalizers.fluxcd.io", nil,
		map[string]any{"interval": "5m", "url": "https://github.com/stefanprodan/podinfo", "ref": map[string]any{"branch": "master"}})
	out, _, code := run(t, "gitrepositories.source.toolkit.fluxcd.io", "podinfo", "-n", "flux-src-gone")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"removed by: Flux source-controller",
		"waits for: source-controller deletes the artifact it stored for this GitRepository",
		"left behind: the GitRepository's stored artifact stays in source-controller's storage",
	}, []string{"objects this Flux object applied"})
}
