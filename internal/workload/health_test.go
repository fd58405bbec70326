package workload

import (
	"testing"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func deployment(replicas, ready, updated int32, conds ...appsv1.DeploymentCondition) *appsv1.Deployment {
	deadline := int32(600)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "velero", Namespace: "velero", Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas, ProgressDeadlineSeconds: &deadline},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: max(replicas, updated), ReadyReplicas: ready,
			AvailableReplicas: ready, UpdatedReplicas: updated, Conditions: conds},
	}
}

func statefulSet(replicas, ready int32, strategy appsv1.StatefulSetUpdateStrategyType) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "data", Generation: 1},
		Spec:       appsv1.StatefulSetSpec{Replicas: &replicas, UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: strategy}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: replicas, ReadyReplicas: ready, CurrentReplicas: replicas,
			UpdatedReplicas: replicas, CurrentRevision: "db-1", UpdateRevision: "db-1"},
	}
}

var (
	available = appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}
	complete  = appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}
	stalled   = appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}
)

func TestOf(t *testing.T) {
	deleting := statefulSet(1, 1, appsv1.RollingUpdateStatefulSetStrategyType)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		name    string
		obj     runtime.Object
		want    status.Status
		running bool
		why     string
	}{
		{"deployment ready", deployment(2, 2, 2, available, complete), status.CurrentStatus, true, "Current: Deployment is available. Replicas: 2"},
		{"deployment scaled to 0", deployment(0, 0, 0, available, complete), status.CurrentStatus, false, "it is scaled to 0: no replica runs"},
		{"deployment rolling, old replica serves", deployment(2, 1, 1, available), status.InProgressStatus, true, "InProgress: Updated: 1/2"},
		{"deployment rolling, nothing ready", deployment(1, 0, 1), status.InProgressStatus, false, "it has no ready replica (InProgress: Available: 0/1)"},
		{"deployment stalled", deployment(2, 1, 1, available, stalled), status.FailedStatus, false, "Failed: Progress deadline exceeded"},
		{"statefulset ready", statefulSet(3, 3, appsv1.RollingUpdateStatefulSetStrategyType), status.CurrentStatus, true, "Current: All replicas scheduled as expected. Replicas: 3"},
		{"statefulset rolling", statefulSet(3, 2, appsv1.RollingUpdateStatefulSetStrategyType), status.InProgressStatus, true, "InProgress: Ready: 2/3"},
		{"statefulset scaled to 0", statefulSet(0, 0, appsv1.RollingUpdateStatefulSetStrategyType), status.CurrentStatus, false, "it is scaled to 0: no replica runs"},
		{"statefulset OnDelete, kstatus Current whatever runs", statefulSet(1, 0, appsv1.OnDeleteStatefulSetStrategyType), status.CurrentStatus, false, "it has no ready replica (Current: StatefulSet is using the ondelete update strategy)"},
		{"statefulset being deleted", deleting, status.TerminatingStatus, false, "Terminating: Resource scheduled for deletion"},
		{"daemonset on no node", &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Generation: 1}, Status: appsv1.DaemonSetStatus{ObservedGeneration: 1}}, status.CurrentStatus, false, "it is scaled to 0: no replica runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := Of(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if h.Status != tc.want || h.Running() != tc.running || h.Why() != tc.why {
				t.Errorf("got %s running=%v %q, want %s running=%v %q", h.Status, h.Running(), h.Why(), tc.want, tc.running, tc.why)
			}
		})
	}
}

func TestOfRejectsOtherKinds(t *testing.T) {
	if _, err := Of(&corev1.Pod{}); err == nil {
		t.Fatal("a Pod got a workload health")
	}
}
