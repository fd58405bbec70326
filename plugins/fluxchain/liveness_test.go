package fluxchain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/testsupport/rbacwait"
)

const rev2 = "main@sha1:2222222222222222222222222222222222222222"

// A source-controller crash-looping for days (OOMKilled, CrashLoopBackOff), while every object
// still says Ready at the old revision, is STALE (exit 2), naming the controller and why it is
// down; it used to exit 0 HEALTHY. Replays https://github.com/fluxcd/kustomize-controller/issues/725
// (a Flux controller in CrashLoopBackOff, OOMKilled) on the source-controller: the GitRepository
// keeps the Ready=True it wrote last, and kustomize-controller, still up, keeps reconciling the
// old artifact every interval, so the Kustomization's Ready is fresh (kustomization_controller.go:325).
func TestDeadControllerIsStale(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-dead-source")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.breakController("source-controller", ctrlState{down: true, restarts: 812, waiting: "CrashLoopBackOff",
		lastReason: "OOMKilled", lastExit: 137, since: time.Now().Add(-72 * time.Hour)})
	res, code := decode(t, "-n", f.ns)
	if code != 2 || res.Verdict != "STALE" || res.Liveness == nil || !res.Liveness.IsStale() {
		t.Fatalf("exit %d verdict %s liveness %+v, want 2 STALE", code, res.Verdict, res.Liveness)
	}
	var down *flux.Controller
	for i, c := range res.Liveness.Controllers {
		if c.Name == "source-controller" {
			down = &res.Liveness.Controllers[i]
		}
	}
	if down == nil || down.Up || !strings.Contains(down.Down, "OOMKilled") || !strings.Contains(down.Down, "CrashLoopBackOff") ||
		down.Restarts != 812 || len(down.Deployments) != 1 || down.Deployments[0] != "flux-system/source-controller" {
		t.Errorf("source-controller = %+v", down)
	}
	out, _, _ := run(t, "-n", f.ns)
	if !strings.Contains(out, "STALE") || !strings.Contains(out, "source-controller (GitRepository) is down") {
		t.Errorf("the text does not name the dead controller:\n%s", out)
	}
}

// kustomize-controller up while a Ready Kustomization's last reconciliation ended hours ago,
// with a 10m interval: the controller stopped reconciling it, and its status is STALE.
// Replays https://github.com/fluxcd/kustomize-controller/issues/1499 ("will sometimes stop
// reconciling objects": the interval is ignored, the conditions are never updated).
func TestStatusOlderThanIntervalIsStale(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-stuck-ks")
	f.gitRepo("fleet", rev1)
	s := readyKS("apps", rev1)
	s.ready = condAt("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev1, time.Now().Add(-3*time.Hour))
	f.ks(s)
	f.ks(readyKS("infra", rev1))
	res, code := decode(t, "-n", f.ns)
	if code != 2 || res.Verdict != "STALE" || len(res.Liveness.Stale) != 1 {
		t.Fatalf("exit %d verdict %s liveness %+v, want 2 STALE with one stale status", code, res.Verdict, res.Liveness)
	}
	if st := res.Liveness.Stale[0]; st.Object != "kustomizations.kustomize.toolkit.fluxcd.io/apps -n fc-stuck-ks" || st.Interval != "10m0s" || st.Controller != "kustomize-controller" {
		t.Errorf("stale = %+v", st)
	}
}

// A user who may read the Flux objects but not Deployments gets UNKNOWN (exit 2) for a chain
// whose status says healthy, with liveness named as not verified; never HEALTHY.
func TestUnreadableControllersAreUnknown(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-no-deploy-rbac")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	ctx := context.Background()
	rbac := f.kube.RbacV1()
	if _, err := rbac.ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "flux-objects-only"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "flux-objects-only"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "flux-objects-only"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "flux-viewer", APIGroup: "rbac.authorization.k8s.io"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rbacwait.AwaitAllowed(t, f.kube, "flux-viewer", authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "list", Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations"})
	res, code := decode(t, "-n", f.ns, "--as=flux-viewer")
	if code != 2 || res.Verdict != "UNKNOWN" || res.Liveness == nil || res.Liveness.Checked || len(res.Liveness.Unchecked) != 1 || res.Liveness.Unchecked[0].Reason != report.GapForbidden || res.Liveness.Unchecked[0].Op != report.OpList {
		t.Fatalf("exit %d verdict %s liveness %+v, want 2 UNKNOWN, liveness not checked", code, res.Verdict, res.Liveness)
	}
	out, _, _ := run(t, "-n", f.ns, "--as=flux-viewer")
	if !strings.Contains(out, "controller liveness not verified") {
		t.Errorf("the text does not say liveness was not verified:\n%s", out)
	}
	// the same chain, read by whoever may read the Deployments, is HEALTHY
	if res, code := decode(t, "-n", f.ns); code != 0 || res.Verdict != "HEALTHY" || !res.Liveness.Checked {
		t.Errorf("exit %d verdict %s liveness %+v, want 0 HEALTHY", code, res.Verdict, res.Liveness)
	}
}

// appliedHR creates a HelmRelease applied by Kustomization apps with status as helm-controller
// writes it.
func (f *fixture) appliedHR(name string, status map[string]any) {
	f.t.Helper()
	f.create(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": name, "namespace": f.ns, "labels": map[string]any{
			"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": f.ns}},
		"spec": map[string]any{"interval": "10m", "timeout": "15m",
			"chart": map[string]any{"spec": map[string]any{"chart": name, "sourceRef": map[string]any{"kind": "HelmRepository", "name": name}}}},
	}}, status)
}

// causeOf returns the root cause whose object is HelmRelease name in ns.
func causeOf(t *testing.T, rcs []flux.RootCause, ns, name string) flux.RootCause {
	t.Helper()
	want := "helmreleases.helm.toolkit.fluxcd.io/" + name + " -n " + ns
	for _, rc := range rcs {
		if rc.Object == want {
			return rc
		}
	}
	t.Fatalf("no cause %s among %+v", want, rcs)
	return flux.RootCause{}
}
