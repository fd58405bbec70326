package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A step that reads the logs of a workload with several pods reads the pod that holds its live
// lease; with one pod, or no live lease of its pods, the step is left as it is.
func TestLeaderLogs(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	sel := map[string]string{"control-plane": "manager"}
	two := int32(2)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "manager", Namespace: "sys"},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}}},
		Status: appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, UpdatedReplicas: 2}}
	pod := func(n string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "sys", Labels: sel}}
	}
	lease := func(holder string, renewed time.Time) *coordinationv1.Lease {
		d := int32(15)
		at := metav1.NewMicroTime(renewed)
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "abc.example.io", Namespace: "sys"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &at}}
	}
	w := ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "sys", Name: "manager"}
	run := func(objs ...runtime.Object) Remediation {
		x := fakeExplainer(append([]runtime.Object{dep}, objs...))
		x.now = now
		c := logsCommand{workload: w, flags: []string{"--all-containers", "--tail=2000"}, grep: "it's-1"}
		step := Remediation{Code: ReasonReadControllerLogs, Summary: "read its logs.", Command: x.logsCommand(c), logs: &c}
		e := &Explanation{Finalizers: []Finalizer{{Name: "example.io/f", Remedies: []Remediation{step}}}}
		x.applyLeaderLogs(ctx, e)
		return e.Finalizers[0].Remedies[0]
	}

	t.Run("the leader", func(t *testing.T) {
		got := run(pod("manager-a"), pod("manager-b"), lease("manager-b_4f1c", now.Add(-5*time.Second)))
		if want := `kubectl --context=test -n sys logs pods/manager-b --all-containers --tail=2000 | grep -F -- 'it'\''s-1'`; got.Command != want {
			t.Errorf("command %q", got.Command)
		}
		if !strings.Contains(got.Summary, "pods/manager-b -n sys") || !strings.Contains(got.Summary, "leases.coordination.k8s.io/abc.example.io -n sys") {
			t.Errorf("summary %q", got.Summary)
		}
	})
	t.Run("a DaemonSet's pods each act", func(t *testing.T) {
		x := fakeExplainer([]runtime.Object{pod("manager-a"), pod("manager-b"), lease("manager-b_4f1c", now)})
		x.now = now
		ds := ObjectRef{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespace: "sys", Name: "manager"}
		if _, ok := x.workloadLeader(ctx, ds); ok {
			t.Error("a DaemonSet narrowed to one pod")
		}
	})
	for name, objs := range map[string][]runtime.Object{
		"one pod":                 {pod("manager-b"), lease("manager-b_4f1c", now)},
		"the lease expired":       {pod("manager-a"), pod("manager-b"), lease("manager-b_4f1c", now.Add(-10*time.Minute))},
		"held by no pod of yours": {pod("manager-a"), pod("manager-b"), lease("other-x_4f1c", now)},
	} {
		t.Run(name, func(t *testing.T) {
			if got := run(objs...); got.Summary != "read its logs." || !strings.Contains(got.Command, "deployments.apps/manager") {
				t.Errorf("changed: %+v", got)
			}
		})
	}
}
