package flux

import (
	"strings"
	"testing"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/cluster"
)

// at sets the lastTransitionTime of every condition of k to t.
func at(conds []metav1.Condition, t time.Time) {
	for i := range conds {
		conds[i].LastTransitionTime = metav1.NewTime(t)
	}
}

// A Kustomization reconciling within its timeout (Ready=Unknown Progressing, as
// kustomize-controller writes it at the start of a reconciliation) is an entry of Progressing
// with the time left, and what waits on it is not a failure; past its timeout it is a root
// cause again. A revision being applied is not a RevisionLag finding.
func TestProgressing(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		started    time.Duration
		causes     int
		progress   int
		healthy    bool
		remaining  string
		lagFinding bool
	}{
		{"within its timeout", 2 * time.Minute, 0, 1, true, "3m0s", false},
		{"past its timeout", 6 * time.Minute, 1, 0, false, "0s", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apps := ks("apps", "Unknown", "Progressing", "Reconciliation in progress")
			apps.Spec.Timeout = &metav1.Duration{Duration: 5 * time.Minute}
			at(apps.Status.Conditions, now.Add(-tc.started))
			apps.Status.LastAttemptedRevision = "main@sha1:2"
			leaf := ks("leaf", "False", "DependencyNotReady", waitApps, "apps")
			leaf.Status.LastAppliedRevision = "main@sha1:2"
			objs := objects(apps, leaf)
			objs.Sources["GitRepository/flux-system/repo"] = SourceObject{Revision: "main@sha1:2", Ready: &Condition{Status: "True"}}
			objs.Now = now
			c := Build(objs)
			if len(c.RootCauses) != tc.causes || len(c.Progressing) != tc.progress || c.Healthy() != tc.healthy {
				t.Fatalf("causes %+v progressing %+v healthy %v", c.RootCauses, c.Progressing, c.Healthy())
			}
			n := c.Node("flux-system/apps")
			if n.Progress == nil || n.Progress.Remaining != tc.remaining {
				t.Errorf("progress %+v, want %s left", n.Progress, tc.remaining)
			}
			lag := false
			for _, f := range c.Findings {
				lag = lag || (f.Kind == FindingRevisionLag && f.Kustomization == "flux-system/apps")
			}
			if within := tc.progress == 1; within && (lag || n.Applying != "main@sha1:2" || n.RevisionLag) {
				t.Errorf("applying %q revisionLag %v lag finding %v, want applying and no lag", n.Applying, n.RevisionLag, lag)
			}
			if tc.progress == 1 && (c.Progressing[0].Code != CodeProgressing || len(c.Progressing[0].BlastRadius) != 1) {
				t.Errorf("progressing %+v", c.Progressing[0])
			}
		})
	}
}

// helm-controller's conditions name the release's state: retries exhausted with the
// remediation taken, a pending-* lock, a test failure, drift; with the commands that restart or
// clear it, quoted, carrying the connection flags.
func TestReleaseStates(t *testing.T) {
	cond := func(typ, status, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
	}
	target := cluster.Target{Context: "prod"}
	for _, tc := range []struct {
		name, kind, command string
		conds               []metav1.Condition
	}{
		{"retries exhausted", ReleaseRetriesExhausted, "flux reconcile helmrelease podinfo -n apps --force --context=prod",
			[]metav1.Condition{cond("Ready", "False", "RollbackSucceeded", "Helm rollback succeeded"), cond("Stalled", "True", "RetriesExceeded", "Failed to upgrade after 4 attempt(s)"),
				cond("Remediated", "True", "RollbackSucceeded", "Helm rollback succeeded")}},
		{"locked, helm-controller v2beta1", ReleaseLocked, "kubectl --context=prod delete secret -n apps -l 'owner=helm,name=podinfo,status in (pending-install,pending-upgrade,pending-rollback)'",
			[]metav1.Condition{cond("Ready", "False", "UpgradeFailed", "Helm upgrade failed: another operation (install/upgrade/rollback) is in progress")}},
		{"locked, failed unlock", ReleaseLocked, "kubectl --context=prod delete secret -n apps -l owner=helm,name=podinfo,status=pending-install",
			[]metav1.Condition{cond("Ready", "False", "ReconcileError", "x"), cond("Released", "False", "PendingRelease", "Unlock of Helm release apps/podinfo.v1 with chart podinfo@1.0.0 in pending-install state failed: boom")}},
		{"test failed", ReleaseTestFailed, "", []metav1.Condition{cond("Ready", "False", "TestFailed", "x"), cond("TestSuccess", "False", "TestFailed", "test podinfo-grpc failed")}},
		{"drift", ReleaseDriftDetected, "", []metav1.Condition{cond("Ready", "True", "UpgradeSucceeded", "x"), cond("Drifted", "True", "DriftDetected", "Deployment/apps/podinfo changed")}},
		{"install failed", "", "", []metav1.Condition{cond("Ready", "False", "InstallFailed", "Helm install failed")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hr := helmv2.HelmRelease{ObjectMeta: metav1.ObjectMeta{Name: "podinfo", Namespace: "apps"}}
			hr.Status.Conditions = tc.conds
			hr.Status.LastAttemptedReleaseAction = helmv2.ReleaseActionUpgrade
			hr.Status.UpgradeFailures = 4
			var h HelmRelease
			h.Namespace, h.Name = hr.Namespace, hr.Name
			h.Ready = condition(hr.Status.Conditions, "Ready")
			readHelmState(&h, &hr)
			kind := ""
			if h.Release != nil {
				kind = h.Release.Kind
			}
			if kind != tc.kind {
				t.Fatalf("release state %+v, want %q", h.Release, tc.kind)
			}
			cmds := releaseCommands(target, h)
			if tc.command != "" && !strings.Contains(strings.Join(cmds, "\n"), tc.command) {
				t.Errorf("commands %q lack %q", cmds, tc.command)
			}
			if tc.kind == ReleaseRetriesExhausted && (h.Release.Failures != 4 || !strings.Contains(h.Release.Remediation, "RollbackSucceeded")) {
				t.Errorf("retries exhausted %+v", h.Release)
			}
		})
	}
}

// A locked release that the HelmRelease's own spec.kubeConfig installs on another cluster has
// its pending storage Secret there: the command that deletes it never carries this cluster's
// connection (a Secret of that name here is another release's), and the message says where it
// is; the forced reconcile stays here, where the HelmRelease lives.
func TestLockedReleaseOnAnotherCluster(t *testing.T) {
	hr := helmv2.HelmRelease{ObjectMeta: metav1.ObjectMeta{Name: "podinfo", Namespace: "apps"}}
	hr.Spec.KubeConfig = &meta.KubeConfigReference{SecretRef: &meta.SecretKeyReference{Name: "spoke-kubeconfig"}}
	hr.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "False", Reason: "ReconcileError", Message: "x"},
		{Type: "Released", Status: "False", Reason: "PendingRelease", Message: "Unlock of Helm release apps/podinfo.v1 with chart podinfo@1.0.0 in pending-install state failed: boom"}}
	h := HelmRelease{Namespace: "apps", Name: "podinfo"}
	readHelmState(&h, &hr)
	if h.Release == nil || h.Release.Kind != ReleaseLocked || !strings.Contains(h.Release.Message, "kubeConfig Secret apps/spoke-kubeconfig") {
		t.Fatalf("release state %+v: want locked, naming the kubeConfig Secret", h.Release)
	}
	cmds := releaseCommands(cluster.Target{Context: "prod"}, h)
	want := []string{"kubectl --kubeconfig=REMOTE_KUBECONFIG delete secret -n apps -l owner=helm,name=podinfo,status=pending-install",
		"flux reconcile helmrelease podinfo -n apps --force --context=prod"}
	if strings.Join(cmds, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands %q, want %q", cmds, want)
	}
}
