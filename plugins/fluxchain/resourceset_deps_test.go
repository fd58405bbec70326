package fluxchain_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
)

// A ResourceSet held back by its spec.dependsOn: the Flux Operator does not reconcile it (so
// creates none of its objects) until the Kustomization it names is Ready, and says so with
// reason DependencyNotReady (flux-operator docs/api/v1/resourceset.md, "Dependency management"
// and "Failed ResourceSet"). Modelled on controlplaneio-fluxcd/d2-fleet's tenants/apps.yaml,
// which waits for monitoring/infra-configs. The cause is that Kustomization, with the
// ResourceSet among its waiters; before, the ResourceSet was a cause of its own beside it, its
// dependency not followed. The message here names no object, so only the reason and the
// spec.dependsOn field lead to it.
func TestResourceSetDependsOnNamesItsWait(t *testing.T) {
	needEnv(t)
	resourceSetCRD(t)
	f := newFixture(t, "fc-rset-deps")
	f.extraController("flux-operator")
	f.gitRepo("fleet", rev1)
	configs := readyKS("infra-configs", rev1)
	configs.ready = cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0s: timeout waiting for: [Deployment/monitoring/kube-prometheus-stack-operator status: 'InProgress']")
	f.ks(configs)
	tenants := readyKS("tenants", rev1)
	tenants.wait = false
	tenants.inventory = []string{f.ns + "_apps_fluxcd.controlplane.io_ResourceSet"}
	f.ks(tenants)
	f.createAs(flux.ExtraGVRs["ResourceSet"], &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fluxcd.controlplane.io/v1", "kind": "ResourceSet",
		"metadata": map[string]any{"name": "apps", "namespace": f.ns, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "tenants", "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
		"spec": map[string]any{"dependsOn": []any{map[string]any{
			"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "name": "infra-configs", "namespace": f.ns, "ready": true}}},
	}}, map[string]any{
		"conditions": []any{cond("Ready", "False", "DependencyNotReady", "dependencies are not ready")},
	})
	res, code := decode(t, "-n", f.ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var got []string
	for _, rc := range res.RootCauses {
		got = append(got, rc.Kustomization+rc.Object)
	}
	if want := []string{f.ns + "/infra-configs"}; !slices.Equal(got, want) {
		t.Fatalf("causes %q, want %q", got, want)
	}
	rc := res.RootCauses[0]
	if want := []string{"resourcesets.fluxcd.controlplane.io/apps -n " + f.ns}; !slices.Equal(rc.Waiters, want) {
		t.Errorf("waiters %q, want %q", rc.Waiters, want)
	}
}
