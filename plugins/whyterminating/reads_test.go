package whyterminating_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
	"github.com/kubeforensics/suite/plugins/whyterminating"
)

// A restricted identity that may read pods and claims but not secrets: the sweep names the
// types it could not list and exits 2, never claiming that nothing else is stuck.
func TestForbiddenTypeIsUnknown(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "why-terminating-partial"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "persistentvolumeclaims", "persistentvolumes", "namespaces", "configmaps"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"apps"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
		},
	}
	if _, err := kc.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sa := "system:serviceaccount:default:viewer"
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "why-terminating-partial"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "viewer"}},
	}
	if _, err := kc.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, kc.Kube, sa, authorizationv1.ResourceAttributes{Verb: "list", Group: "apps", Resource: "deployments"})
	out, errOut, code := run(t, "-n", incident.Namespace, "--as", sa, "-o", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	var res whyterminating.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Verdict != "UNKNOWN" {
		t.Errorf("verdict %s, want UNKNOWN", res.Verdict)
	}
	named := false
	for _, g := range res.Incomplete {
		named = named || (g.What == "listing secrets" && g.Reason == report.GapForbidden && g.Op == report.OpList && g.Subject.Resource == "secrets")
	}
	if !named {
		t.Errorf("incomplete reads do not name secrets as forbidden: %+v", res.Incomplete)
	}
	// What could be read is still reported: the stuck claim.
	found := false
	for _, o := range res.Objects {
		found = found || o.Object.String() == "persistentvolumeclaims/headlamp -n headlamp"
	}
	if !found {
		t.Errorf("the stuck claim is missing from a partial sweep")
	}
	text, _, _ := run(t, "-n", incident.Namespace, "--as", sa)
	if !strings.Contains(text, "INCOMPLETE: these reads or builds failed") || !strings.Contains(text, "listing secrets: forbidden") || !strings.Contains(text, "verdict: UNKNOWN (exit 2)") {
		t.Errorf("text output does not flag the forbidden read:\n%s", text)
	}
}

// The -A sweep finds the stuck claim with everything else that is Terminating.
func TestSweepAllNamespaces(t *testing.T) {
	needEnv(t)
	out, _, code := run(t, "-A", "-o", "yaml")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{"scope: cluster", "name: headlamp", "kubernetes.io/pvc-protection", "verdict: STUCK"} {
		if !strings.Contains(out, want) {
			t.Errorf("yaml lacks %q", want)
		}
	}
}

// An unavailable aggregated API (a removed metrics-server) breaks discovery of its group only:
// the claim still resolves and is explained; a sweep reports the failed group as unread.
func TestUnavailableAPIService(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	if err := incident.SeedUnavailableAPIService(ctx, kc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gvr := schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}
		_ = kc.Dynamic.Resource(gvr).Delete(ctx, "v1beta1."+incident.UnavailableGroup, metav1.DeleteOptions{})
	})
	out, errOut, code := run(t, "pvc", "headlamp", "-n", incident.Namespace, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	var res whyterminating.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.DiscoveryFailures) == 0 || !strings.HasPrefix(res.DiscoveryFailures[0].GroupVersion, incident.UnavailableGroup) {
		t.Errorf("discovery failures = %+v", res.DiscoveryFailures)
	}
	_, errOut, code = run(t, "nodes.metrics.k8s.io", "x")
	if code != 2 || !strings.Contains(errOut, "discovery failed for metrics.k8s.io/v1beta1") {
		t.Errorf("a kind of the failed group: exit %d, %s", code, errOut)
	}
	out, _, code = run(t, "-n", incident.Namespace)
	if code != 2 || !strings.Contains(out, "metrics.k8s.io/v1beta1") {
		t.Errorf("sweep with a failed group: exit %d, want 2\n%s", code, out)
	}
	// A namespace deleted while the group is undiscoverable cannot finish: the APIService is
	// named as its blocker, with the fix and its cost.
	createNamespace(t, "aggr")
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "aggr", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, _ = run(t, "namespace", "aggr")
	for _, want := range []string{
		"blocked by apiservices.apiregistration.k8s.io/v1beta1.metrics.k8s.io: is unavailable",
		"services/metrics-server -n kube-system does not exist, so the product behind apiservices.apiregistration.k8s.io/v1beta1.metrics.k8s.io appears uninstalled: Delete APIService v1beta1.metrics.k8s.io, whose API was removed.",
		"kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " delete apiservices.apiregistration.k8s.io v1beta1.metrics.k8s.io",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("namespace aggr: output lacks %q\n%s", want, out)
		}
	}
}

// Unreachable or slow servers are UNKNOWN with a one-line error, and nothing else is printed.
func TestUnreachableServer(t *testing.T) {
	for _, tc := range []struct{ name, server, want string }{
		{"refused", "https://127.0.0.1:1", "API server unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runRaw(t, "--server", tc.server, "--insecure-skip-tls-verify", "--request-timeout", "2s", "pvc", "x", "-n", "y")
			if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
		})
	}
}
