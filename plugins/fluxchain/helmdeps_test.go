package fluxchain_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
)

// hrspec describes one HelmRelease of a fixture: the Kustomization that applies it (its labels),
// its dependsOn (name or namespace/name, no readyExpr) and its status conditions.
type hrspec struct {
	name, appliedBy string
	deps            []string
	conds           []any
}

// helmReleaseOf creates a HelmRelease and writes its status as helm-controller would.
func (f *fixture) helmReleaseOf(s hrspec) {
	f.t.Helper()
	spec := map[string]any{"interval": "10m",
		"chart": map[string]any{"spec": map[string]any{"chart": s.name, "sourceRef": map[string]any{"kind": "HelmRepository", "name": "charts"}}}}
	var deps []any
	for _, d := range s.deps {
		ref := map[string]any{"name": d}
		if ns, name, ok := strings.Cut(d, "/"); ok {
			ref["namespace"], ref["name"] = ns, name
		}
		deps = append(deps, ref)
	}
	if deps != nil {
		spec["dependsOn"] = deps
	}
	meta := map[string]any{"name": s.name, "namespace": f.ns}
	if s.appliedBy != "" {
		meta["labels"] = map[string]any{"kustomize.toolkit.fluxcd.io/name": s.appliedBy, "kustomize.toolkit.fluxcd.io/namespace": f.ns}
	}
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": meta, "spec": spec,
	}}, map[string]any{"conditions": s.conds})
}

// heldBackBy is the status helm-controller writes on a HelmRelease whose dependency is not
// Ready (internal/controller/helmrelease_controller.go, checkDependencies): Ready=False
// DependencyNotReady with the dependency check's error, and Reconciling from the start of the
// reconciliation.
func heldBackBy(ns, dep string) []any {
	return []any{cond("Ready", "False", "DependencyNotReady", "dependency '"+ns+"/"+dep+"' is not ready"),
		cond("Reconciling", "True", "Progressing", "Fulfilling prerequisites")}
}

// certManagerInstallFailed is the failure of https://github.com/fluxcd/flux2-kustomize-helm-example/issues/111:
// cert-manager's CRDs were installed by hand before, so Helm refuses to adopt them.
func certManagerInstallFailed(ns string) []any {
	msg := "Helm install failed for release " + ns + "/cert-manager with chart cert-manager@v1.15.0: Unable to continue with install: CustomResourceDefinition \"certificaterequests.cert-manager.io\" in namespace \"\" exists and cannot be imported into the current release: invalid ownership metadata; label validation error: missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\""
	return []any{cond("Ready", "False", "InstallFailed", msg), cond("Released", "False", "InstallFailed", msg)}
}

// TestHelmReleaseWaitsOnFailedRelease replays flux2-kustomize-helm-example#111 with the
// cert-manager HelmRelease a dependency of another: trust-manager's dependsOn names it, so
// helm-controller holds trust-manager back. The Kustomization applying both does not wait for
// them, so it is Ready, and the chain said HEALTHY (exit 0): cert-manager is the root cause and
// trust-manager what it holds back.
func TestHelmReleaseWaitsOnFailedRelease(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-waits"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "infra", applied: rev1, ready: cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev1)})
	f.helmReleaseOf(hrspec{name: "cert-manager", appliedBy: "infra", conds: certManagerInstallFailed(ns)})
	f.helmReleaseOf(hrspec{name: "trust-manager", appliedBy: "infra", deps: []string{"cert-manager"}, conds: heldBackBy(ns, "cert-manager")})
	res, code := decode(t, "-n", ns)
	if code != 1 || res.Verdict != "FAILING" {
		t.Fatalf("exit %d verdict %s, want 1 FAILING", code, res.Verdict)
	}
	if len(res.RootCauses) != 1 {
		t.Fatalf("root causes %+v, want cert-manager alone", res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Object != "helmreleases.helm.toolkit.fluxcd.io/cert-manager -n "+ns || rc.Reason != "InstallFailed" ||
		rc.AppliedBy != ns+"/infra" || !slices.Equal(rc.HeldBack, []string{ns + "/trust-manager"}) {
		t.Errorf("root cause %+v, want cert-manager holding trust-manager back", rc)
	}
}

// TestHelmReleaseWaitsTierFails: the same, with the Kustomization waiting for its HelmReleases
// and apps behind it. Its health check times out on both; cert-manager is the one cause, infra
// fails on it directly and apps is frozen behind it.
func TestHelmReleaseWaitsTierFails(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-waits-tier"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(kspec{name: "infra", wait: true, timeout: "5m", applied: rev1,
		ready: cond("Ready", "False", "HealthCheckFailed", "health check failed after 5m0.03s: timeout waiting for: [HelmRelease/"+ns+"/cert-manager status: 'Failed', HelmRelease/"+ns+"/trust-manager status: 'InProgress']")})
	f.ks(waitingKS(ns, "apps", rev1, "infra"))
	f.helmReleaseOf(hrspec{name: "cert-manager", appliedBy: "infra", conds: certManagerInstallFailed(ns)})
	f.helmReleaseOf(hrspec{name: "trust-manager", appliedBy: "infra", deps: []string{"cert-manager"}, conds: heldBackBy(ns, "cert-manager")})
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, root causes %+v; want 1 and cert-manager alone", code, res.RootCauses)
	}
	rc := res.RootCauses[0]
	if !strings.HasSuffix(rc.Object, "/cert-manager -n "+ns) || !slices.Equal(rc.Tiers, []string{ns + "/infra"}) ||
		!slices.Equal(rc.BlastRadius, []string{ns + "/apps", ns + "/infra"}) || !slices.Equal(rc.HeldBack, []string{ns + "/trust-manager"}) {
		t.Errorf("root cause %+v, want cert-manager with infra failing on it, apps behind, trust-manager held back", rc)
	}
	text, _, _ := run(t, "-n", ns)
	goldens.Assert(t, ns+".txt", text)
}

// TestHelmReleaseDependsOnKustomizationName replays https://github.com/ionfury/homelab/pull/272:
// the authelia and lldap HelmReleases dependsOn authelia-prereqs, a Kustomization; helm-controller
// looks for a HelmRelease of that name and holds both back forever. The Kustomizations are all
// Ready, and the chain said HEALTHY; the missing HelmRelease is the one cause, naming the
// Kustomization that has its name.
func TestHelmReleaseDependsOnKustomizationName(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-missing"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("authelia-prereqs", rev1))
	f.ks(kspec{name: "apps", deps: []string{"authelia-prereqs"}, applied: rev1, ready: cond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev1)})
	notFound := `unable to get '` + ns + `/authelia-prereqs' dependency: helmreleases.helm.toolkit.fluxcd.io "authelia-prereqs" not found`
	for _, name := range []string{"authelia", "lldap"} {
		f.helmReleaseOf(hrspec{name: name, appliedBy: "apps", deps: []string{"authelia-prereqs"},
			conds: []any{cond("Ready", "False", "DependencyNotReady", notFound), cond("Reconciling", "True", "Progressing", "Fulfilling prerequisites")}})
	}
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, root causes %+v; want 1 and the missing HelmRelease alone", code, res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Object != "helmreleases.helm.toolkit.fluxcd.io/authelia-prereqs -n "+ns || rc.Reason != flux.ReasonNotFound ||
		!slices.Equal(rc.HeldBack, []string{ns + "/authelia", ns + "/lldap"}) ||
		!strings.Contains(strings.Join(rc.Explanation, " "), "kustomizations.kustomize.toolkit.fluxcd.io/authelia-prereqs -n "+ns) {
		t.Errorf("root cause %+v, want authelia-prereqs not found, holding back authelia and lldap, named as a Kustomization", rc)
	}
	text, _, _ := run(t, "-n", ns)
	goldens.Assert(t, ns+".txt", text)
}

// TestHelmReleaseDependencyForbidden: the HelmRelease waits on one in another namespace, which
// the user may not read (-n with a namespaced Role). Whether it exists or is Ready is unknown:
// exit 2, the unread dependency named. The chain used to skip it and say HEALTHY.
func TestHelmReleaseDependencyForbidden(t *testing.T) {
	needEnv(t)
	const ns, other, user = "fc-hr-forbidden", "fc-hr-forbidden-db", "hr-ns-viewer"
	newFixture(t, other).helmReleaseOf(hrspec{name: "postgres", conds: certManagerInstallFailed(other)})
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.helmReleaseOf(hrspec{name: "api", appliedBy: "apps", deps: []string{other + "/postgres"}, conds: heldBackBy(other, "postgres")})
	ctx := context.Background()
	rbac := f.kube.RbacV1()
	_, err := rbac.Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "flux-viewer"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rbac.RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "flux-viewer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "flux-viewer"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, f.kube, user, authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"})
	res, code := decode(t, "-n", ns, "--as="+user)
	if code != 2 || res.Verdict != "UNKNOWN" {
		t.Fatalf("exit %d verdict %s, want 2 UNKNOWN; root causes %+v", code, res.Verdict, res.RootCauses)
	}
	if len(res.RootCauses) != 1 || res.RootCauses[0].Reason != flux.ReasonDependencyUnread ||
		res.RootCauses[0].Object != "helmreleases.helm.toolkit.fluxcd.io/postgres -n "+other || !strings.Contains(res.RootCauses[0].Message, "forbidden") {
		t.Errorf("root causes %+v, want postgres unread (forbidden)", res.RootCauses)
	}
	if !slices.ContainsFunc(res.Incomplete, func(g report.Gap) bool { return strings.Contains(g.What, "postgres") }) {
		t.Errorf("incomplete %+v does not name postgres", res.Incomplete)
	}
}

// TestHelmReleaseGenerationNotObserved replays https://github.com/fluxcd/helm-controller/issues/946:
// the dependency's Ready condition is True for generation 2, but status.observedGeneration
// still says 1, and helm-controller's check compares generation with status.observedGeneration,
// so the dependent waits though its dependency looks Ready. The chain names that.
func TestHelmReleaseGenerationNotObserved(t *testing.T) {
	needEnv(t)
	const ns = "fc-hr-generation"
	f := newFixture(t, ns)
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.helmReleaseOf(hrspec{name: "operator", appliedBy: "apps", conds: []any{cond("Ready", "True", "InstallSucceeded", "Helm install succeeded for release "+ns+"/operator.v1 with chart operator@1.0.0")}})
	f.helmReleaseOf(hrspec{name: "cluster", appliedBy: "apps", deps: []string{"operator"}, conds: heldBackBy(ns, "operator")})
	ctx := context.Background()
	ri := f.dyn.Resource(flux.HelmReleaseGVR).Namespace(ns)
	hr, err := ri.Get(ctx, "operator", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(hr.Object, "20m", "spec", "interval"); err != nil {
		t.Fatal(err)
	}
	if hr, err = ri.Update(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready := cond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release "+ns+"/operator.v2 with chart operator@1.0.0")
	ready["observedGeneration"] = hr.GetGeneration()
	hr.Object["status"] = map[string]any{"observedGeneration": int64(1), "conditions": []any{ready}}
	if _, err := ri.UpdateStatus(ctx, hr, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	res, code := decode(t, "-n", ns)
	if code != 1 || len(res.RootCauses) != 1 {
		t.Fatalf("exit %d, root causes %+v; want 1 and the operator alone", code, res.RootCauses)
	}
	rc := res.RootCauses[0]
	if rc.Reason != flux.ReasonGenerationNotObserved || !strings.HasSuffix(rc.Object, "/operator -n "+ns) ||
		!strings.Contains(rc.Message, "status.observedGeneration 1 is behind generation 2") || !slices.Equal(rc.HeldBack, []string{ns + "/cluster"}) {
		t.Errorf("root cause %+v, want the operator's generation not observed, holding cluster back", rc)
	}
}
