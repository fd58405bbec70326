package whyterminating_test

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Korifi's CFDomain lives in the root namespace and the CFRoutes of every space namespace name it
// by spec.domainRef {name, namespace}; the domain's finalizer cfDomain.korifi.cloudfoundry.org is
// its controller's cleanup of those routes, which it lists cluster-wide
// (https://github.com/cloudfoundry/korifi/issues/2591: domain and routes deleted out of order
// leave the routes without their domain). A stuck domain with a route left in another namespace
// names that route, found by the namespace its reference carries; a route in another namespace
// whose reference names no namespace points into its own and is not one.
func TestReferrerInAnotherNamespaceByNamespaceField(t *testing.T) {
	needEnv(t)
	ensureNamespace(t, "korifi")
	ensureNamespace(t, "cf")
	ensureNamespace(t, "cf-space-1")
	domainGVR := applyCRD(t, crdSpec{group: "korifi.cloudfoundry.org", kind: "CFDomain", plural: "cfdomains", namespaced: true, versions: []string{"v1alpha1"}, status: true})
	routeGVR := applyCRD(t, crdSpec{group: "korifi.cloudfoundry.org", kind: "CFRoute", plural: "cfroutes", namespaced: true, versions: []string{"v1alpha1"}, status: true})
	grantClusterRole(t, "korifi-controllers-manager-role", []rbacv1.PolicyRule{
		{APIGroups: []string{"korifi.cloudfoundry.org"}, Resources: []string{"cfdomains", "cfroutes"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{"korifi.cloudfoundry.org"}, Resources: []string{"cfdomains/finalizers", "cfroutes/finalizers"}, Verbs: []string{"update"}},
	}, "korifi", "korifi-controllers-controller-manager", "")
	createWorkload(t, workloadSpec{ns: "korifi", name: "korifi-controllers-controller-manager", sa: "korifi-controllers-controller-manager", replicas: 1, ready: true})
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("korifi").Delete(context.Background(), "korifi-controllers-controller-manager", metav1.DeleteOptions{})
	})
	createObject(t, routeGVR, "CFRoute", "cf-space-1", "my-app-route", map[string]any{"host": "my-app", "domainRef": map[string]any{"name": "apps", "namespace": "cf"}})
	createObject(t, routeGVR, "CFRoute", "cf-space-1", "local-route", map[string]any{"host": "other", "domainRef": map[string]any{"name": "apps"}})
	createStuck(t, domainGVR, "CFDomain", "cf", "apps", "cfDomain.korifi.cloudfoundry.org", nil, map[string]any{"name": "apps.example.com"})

	out, _, code := run(t, "cfdomains.korifi.cloudfoundry.org", "apps", "-n", "cf")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	wantAll(t, out, []string{
		"blocked by cfroutes.korifi.cloudfoundry.org/my-app-route -n cf-space-1: refers to it by spec.domainRef",
		"verdict: STUCK (exit 1)",
	}, []string{"no blocker found", "cfroutes.korifi.cloudfoundry.org/local-route"})
}
