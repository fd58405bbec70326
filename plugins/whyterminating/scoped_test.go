package whyterminating_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// oncall is an identity that may read the core and apps groups (no Secrets) but not
// APIServices, RBAC or webhook configurations: a typical narrow on-call role.
const oncall = "system:serviceaccount:default:oncall"

func grantOncall(t *testing.T) {
	t.Helper()
	grantClusterRole(t, "wt-oncall", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods", "persistentvolumeclaims", "persistentvolumes", "namespaces", "configmaps", "nodes", "services"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
	}, "default", "oncall", "")
}

// A user who may not list APIServices explains the claim: the read that cannot change the
// claim's verdict does not make it UNKNOWN, and no APIService repair is invented from a
// forbidden read (the report of "Discovery fails for apiregistration.k8s.io/v1").
func TestForbiddenAPIServicesNotInvented(t *testing.T) {
	needEnv(t)
	grantOncall(t)
	out, errOut, code := run(t, "pvc", "headlamp", "-n", incident.Namespace, "--as", oncall)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the claim's blocker is proven)\n%s\n%s", code, out, errOut)
	}
	wantAll(t, out, []string{
		"blocked by pods/",
		"not checked: reading admission webhooks that could reject UPDATE of persistentvolumeclaims: ",
	}, []string{"Repair", "unavailable APIService", "INCOMPLETE"})
}

// -A under a narrow role: a Terminating namespace's content sweep fails for the same types as
// the cluster sweep; each type is named once at the end, not again under every namespace
// (the "hundreds of INCOMPLETE lines").
func TestSweepUnderNarrowRoleSummarises(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	grantOncall(t)
	createNamespace(t, "narrow-stuck")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "narrow-stuck", Finalizers: []string{holdFinalizer}}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("narrow-stuck").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseConfigMap(t, "narrow-stuck", "held") })
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "narrow-stuck", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "-A", "--as", oncall)
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, out)
	}
	if n := strings.Count(out, "secrets: forbidden"); n != 1 {
		t.Errorf("secrets named %d times as forbidden, want once\n%s", n, out)
	}
	wantAll(t, out, []string{
		"namespaces/narrow-stuck Terminating for",
		"could not be listed here either (each named once at the end)",
		"INCOMPLETE: these reads or builds failed",
	}, []string{"listing secrets in the namespace"})
}

// An identity that may read ConfigMaps but not workloads, RBAC or APIServices explains a held
// ConfigMap: what it could not read is named, the answer is UNKNOWN, and no step rests on the
// unread facts (no "reinstall the controller", no finalizer strip, no discovery failure
// invented from the forbidden APIService list).
func TestForbiddenReadsNoFixResting(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	grantClusterRole(t, "wt-configmaps-only", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces"}, Verbs: []string{"get", "list"}},
	}, "default", "cm-reader", "")
	createNamespace(t, "narrow-read")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Namespace: "narrow-read", Finalizers: []string{"example.com/hold"}}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("narrow-read").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseConfigMap(t, "narrow-read", "held") })
	if err := kc.Kube.CoreV1().ConfigMaps("narrow-read").Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "cm", "held", "-n", "narrow-read", "--as", "system:serviceaccount:default:cm-reader")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, out)
	}
	wantAll(t, out, []string{
		"INCOMPLETE: listing workloads to find who may update configmaps: forbidden",
		"fix 1: Who removes example.com/hold could not be read (see INCOMPLETE)",
		"not checked: whether every APIService is available:",
		"verdict: UNKNOWN (exit 2)",
	}, []string{"Reinstall", "last resort", "discovery failed"})
}
