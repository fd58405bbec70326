package whyterminating_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
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
	rbacwait.AwaitAllowed(t, kc.Kube, oncall, authorizationv1.ResourceAttributes{Verb: "list", Group: "apps", Resource: "deployments"})
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

// A sweep by an identity that may not list APIServices counts the check it could not make as
// incomplete (a group whose APIService is down is missing from discovery): the check is its own
// gap, typed, with the check's own error, not lines folded into another gap's error.
func TestSweepKeepsTheUncheckedAPIServicesTyped(t *testing.T) {
	needEnv(t)
	grantOncall(t)
	out, errOut, code := run(t, "-A", "--as", oncall, "-o", "json")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s\n%s", code, out, errOut)
	}
	var res struct{ Incomplete, Unchecked []report.Gap }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var checks []report.Gap
	for _, g := range res.Incomplete {
		if g.Op == report.OpCheck {
			checks = append(checks, g)
		}
	}
	if len(checks) != 1 || checks[0].Subject.Resource != "apiservices" || checks[0].Reason != report.GapForbidden ||
		!strings.HasPrefix(checks[0].Error, "could not check APIService availability: ") || strings.Contains(checks[0].Error, "whether every APIService") {
		t.Errorf("checks in incomplete[] %+v, want one typed forbidden APIService check with its own error", checks)
	}
	if len(res.Unchecked) != 0 {
		t.Errorf("unchecked %+v: a sweep counts the check as incomplete", res.Unchecked)
	}
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
	rbacwait.AwaitAllowed(t, kc.Kube, "system:serviceaccount:default:cm-reader", authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps"})
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
