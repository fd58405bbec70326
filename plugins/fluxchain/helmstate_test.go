package fluxchain_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/flux"
)

// Upgrade retries exhausted after a rollback remediation, with status as helm-controller
// writes it (internal/reconcile/atomic_release.go:305, Stalled=True RetriesExceeded "Failed to
// upgrade after 4 attempt(s)"; release.go:213-:256 summarize copies the Remediated condition
// into Ready): the cause says retries are exhausted, the remediation taken, and prints what
// restarts it with the connection flags used. Replays https://github.com/fluxcd/flux2/issues/5592
// ("stalled helm releases are stuck": it stays stuck until restarted) and
// https://github.com/fluxcd/helm-controller/issues/297 (how to retry without a spec change).
func TestHelmRetriesExhausted(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-hr-retries")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.appliedHR("podinfo", map[string]any{
		"conditions": []any{
			cond("Ready", "False", "RollbackSucceeded", "Helm rollback to previous release fc-hr-retries/podinfo.v3 with chart podinfo@6.5.4 succeeded"),
			cond("Stalled", "True", "RetriesExceeded", "Failed to upgrade after 4 attempt(s)"),
			cond("Released", "False", "UpgradeFailed", "Helm upgrade failed for release fc-hr-retries/podinfo with chart podinfo@6.6.0: context deadline exceeded"),
			cond("Remediated", "True", "RollbackSucceeded", "Helm rollback to previous release fc-hr-retries/podinfo.v3 with chart podinfo@6.5.4 succeeded"),
		},
		"lastAttemptedReleaseAction": "upgrade", "upgradeFailures": int64(4), "failures": int64(4),
	})
	res, code := decode(t, "-n", f.ns)
	if code != 1 || res.Verdict != "FAILING" {
		t.Fatalf("exit %d verdict %s, want 1 FAILING", code, res.Verdict)
	}
	rc := causeOf(t, res.RootCauses, f.ns, "podinfo")
	if rc.Code != flux.CodeHelmRetriesExhausted || len(rc.HelmReleases) != 1 {
		t.Fatalf("cause %+v, want code %s", rc, flux.CodeHelmRetriesExhausted)
	}
	st := rc.HelmReleases[0].Release
	if st == nil || st.Kind != flux.ReleaseRetriesExhausted || st.Action != "upgrade" || st.Failures != 4 || !strings.Contains(st.Remediation, "RollbackSucceeded") {
		t.Errorf("release state %+v", st)
	}
	flags := "--kubeconfig=" + env.Kubeconfig + " --context=" + env.Context
	for _, want := range []string{"flux reconcile helmrelease podinfo -n fc-hr-retries --force " + flags, "flux reconcile helmrelease podinfo -n fc-hr-retries --reset " + flags} {
		if !slices.Contains(rc.Commands, want) {
			t.Errorf("commands %q lack %q", rc.Commands, want)
		}
	}
}

// A release left pending-upgrade, with status as helm-controller v2beta1 wrote it in
// https://github.com/fluxcd/helm-controller/issues/149 (Ready=False UpgradeFailed "Helm upgrade
// failed: another operation (install/upgrade/rollback) is in progress"), and as helm-controller
// writes a failed unlock now (internal/reconcile/unlock.go:104-:120, Released=False
// PendingRelease): named as locked, with the command that deletes the pending storage Secret.
func TestHelmReleaseLocked(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-hr-locked")
	f.gitRepo("fleet", rev1)
	f.ks(readyKS("apps", rev1))
	f.appliedHR("chaos-mesh", map[string]any{"conditions": []any{
		cond("Ready", "False", "UpgradeFailed", "Helm upgrade failed: another operation (install/upgrade/rollback) is in progress"),
	}})
	f.appliedHR("podinfo", map[string]any{"conditions": []any{
		cond("Ready", "False", "ReconcileError", "Unlock of Helm release fc-hr-locked/podinfo.v4 with chart podinfo@6.6.0 in pending-upgrade state failed: timed out"),
		cond("Released", "False", "PendingRelease", "Unlock of Helm release fc-hr-locked/podinfo.v4 with chart podinfo@6.6.0 in pending-upgrade state failed: timed out"),
	}})
	res, code := decode(t, "-n", f.ns)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	flags := "--kubeconfig=" + env.Kubeconfig + " --context=" + env.Context
	for name, sel := range map[string]string{
		"chaos-mesh": "'owner=helm,name=chaos-mesh,status in (pending-install,pending-upgrade,pending-rollback)'",
		"podinfo":    "owner=helm,name=podinfo,status=pending-upgrade",
	} {
		rc := causeOf(t, res.RootCauses, f.ns, name)
		if rc.Code != flux.CodeHelmReleaseLocked {
			t.Errorf("%s: code %s, want %s", name, rc.Code, flux.CodeHelmReleaseLocked)
		}
		want := "kubectl " + flags + " delete secret -n fc-hr-locked -l " + sel
		if !slices.Contains(rc.Commands, want) {
			t.Errorf("%s: commands %q lack %q", name, rc.Commands, want)
		}
	}
}

// A HelmRelease upgrading within its timeout, with a Kustomization health-checking it and one
// waiting on that: PROGRESSING (exit 0) with the time left, FAILING-free; exit 1 only with
// --fail-on-progressing. Status as the controllers write it at the start of an action
// (helm-controller internal/reconcile/atomic_release.go:249-:258; kustomize-controller
// kustomization_controller.go:325-:326, :1053). Replays https://github.com/fluxcd/helm-controller/issues/890
// (`flux get hr`: READY Unknown, "Reconciliation in progress" while an upgrade runs), which
// the chain called a root cause, FAILING, exit 1.
func TestProgressingIsItsOwnVerdict(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-progressing")
	f.gitRepo("fleet", rev1)
	started := time.Now().Add(-2 * time.Minute)
	f.ks(kspec{name: "apps", wait: true, timeout: "20m", applied: rev1,
		ready: condAt("Ready", "Unknown", "Progressing", "Reconciliation in progress", started)})
	f.ks(waitingKS(f.ns, "leaf", rev1, "apps"))
	f.appliedHR("podinfo", map[string]any{"conditions": []any{
		condAt("Ready", "Unknown", "Progressing", "Running 'upgrade' action with timeout of 15m0s", started),
		condAt("Reconciling", "True", "Progressing", "Running 'upgrade' action with timeout of 15m0s", started),
	}})
	res, code := decode(t, "-n", f.ns)
	if code != 0 || res.Verdict != "PROGRESSING" || len(res.RootCauses) != 0 || len(res.Progressing) != 1 {
		t.Fatalf("exit %d verdict %s root causes %+v progressing %+v, want 0 PROGRESSING", code, res.Verdict, res.RootCauses, res.Progressing)
	}
	p := res.Progressing[0]
	if p.Kustomization != "fc-progressing/apps" || p.Code != flux.CodeProgressing || p.Progress == nil || p.Progress.Timeout != "20m0s" ||
		!slices.Equal(p.BlastRadius, []string{"fc-progressing/leaf"}) || len(p.HelmReleases) != 1 || p.HelmReleases[0].Progress == nil {
		t.Fatalf("progressing %+v", p)
	}
	if left, err := time.ParseDuration(p.Progress.Remaining); err != nil || left < 17*time.Minute || left > 18*time.Minute {
		t.Errorf("remaining %q, want about 18m", p.Progress.Remaining)
	}
	if _, _, code := run(t, "-n", f.ns, "--fail-on-progressing"); code != 1 {
		t.Errorf("--fail-on-progressing: exit %d, want 1", code)
	}
}

// A Kustomization applying a new revision (lastAttemptedRevision at the source's, ahead of
// lastAppliedRevision, while Reconciling) is not also a RevisionLag finding.
// kustomize-controller records the revision it starts on as lastAttemptedRevision
// (kustomization_controller.go:384) and moves lastAppliedRevision when it is applied; replays
// https://github.com/fluxcd/flux2/issues/3790 ("reconciliation in progress" with READY Unknown).
func TestApplyingIsNotLag(t *testing.T) {
	needEnv(t)
	f := newFixture(t, "fc-applying")
	f.gitRepo("fleet", rev2)
	f.ks(kspec{name: "apps", wait: true, timeout: "5m", applied: rev1,
		ready: condAt("Ready", "Unknown", "Progressing", "Reconciliation in progress", time.Now().Add(-30*time.Second))})
	f.patchStatus("apps", map[string]any{"lastAttemptedRevision": rev2}, condAt("Reconciling", "True", "Progressing",
		"Building manifests for revision "+rev2+" with a timeout of 5m0s", time.Now().Add(-20*time.Second)))
	res, code := decode(t, "-n", f.ns)
	if got := findingKinds(res)[flux.FindingRevisionLag]; len(got) != 0 {
		t.Errorf("revision lag findings %v for a revision being applied", got)
	}
	n := res.Node("fc-applying/apps")
	if code != 0 || res.Verdict != "PROGRESSING" || n.Applying != rev2 || n.RevisionLag {
		t.Errorf("exit %d verdict %s node %+v, want 0 PROGRESSING applying %s", code, res.Verdict, n, rev2)
	}
}

// patchStatus sets fields on Kustomization name's status and adds conditions to it.
func (f *fixture) patchStatus(name string, fields map[string]any, conds ...map[string]any) {
	f.t.Helper()
	ri := f.dyn.Resource(flux.KustomizationGVR).Namespace(f.ns)
	u, err := ri.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	status, _ := u.Object["status"].(map[string]any)
	for k, v := range fields {
		status[k] = v
	}
	list, _ := status["conditions"].([]any)
	for _, c := range conds {
		list = append(list, c)
	}
	status["conditions"] = list
	if _, err := ri.UpdateStatus(context.Background(), u, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}
