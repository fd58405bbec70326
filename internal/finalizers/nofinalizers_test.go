package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A pod long past its grace period on a Ready node: the node's kubelet (or an agent in its place
// that keeps no lease, as KubeEdge's edgecore) runs but does not finish the stop
// (https://github.com/kubeedge/kubeedge/issues/2176). The step is to find why on the node, then
// force the deletion, not "only if the node is gone for good". Within the window, with a stale
// lease, or on a node that is not Ready, the forced delete stays the last resort.
func TestPodPastGraceOnReadyNode(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	pods := kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	for _, tc := range []struct {
		name     string
		past     time.Duration
		ready    bool
		lease    *time.Time
		wantStop bool
	}{
		{name: "no lease, an hour past", past: time.Hour, ready: true, wantStop: true},
		{name: "lease renewed, an hour past", past: time.Hour, ready: true, lease: ptrTo(now.Add(-10 * time.Second)), wantStop: true},
		{name: "lease stale", past: time.Hour, ready: true, lease: ptrTo(now.Add(-time.Hour))},
		{name: "node not Ready", past: time.Hour},
		{name: "just past the grace period", past: time.Minute, ready: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end := metav1.NewTime(now.Add(-tc.past))
			grace := int64(30)
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "ingest", Namespace: "edge", DeletionTimestamp: &end, DeletionGracePeriodSeconds: &grace},
				Spec: corev1.PodSpec{NodeName: "edge-1", Volumes: []corev1.Volume{{Name: "data",
					VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "frames"}}}}},
			}
			status := corev1.ConditionFalse
			if tc.ready {
				status = corev1.ConditionTrue
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "edge-1"},
				Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
			objs := []runtime.Object{pod, node}
			if tc.lease != nil {
				renew := metav1.NewMicroTime(*tc.lease)
				objs = append(objs, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "edge-1", Namespace: corev1.NamespaceNodeLease},
					Spec: coordinationv1.LeaseSpec{RenewTime: &renew}})
			}
			x := kubeOnlyExplainer(objs...).At(now)
			var e Explanation
			x.explainNoFinalizers(context.Background(), subject{res: pods, obj: pod}, &e)
			if e.PendingCode != ReasonPodAwaitsKubelet || len(e.Remedies) != 1 {
				t.Fatalf("pending %q, remedies %+v", e.PendingCode, e.Remedies)
			}
			// The node is named fully qualified, as every object is.
			if !strings.Contains(e.Pending, "the kubelet of nodes/edge-1 ") {
				t.Errorf("pending %q does not name nodes/edge-1", e.Pending)
			}
			r := e.Remedies[0]
			if r.Code != ReasonForceDeletePod || !strings.Contains(r.Command, "delete pod ingest --grace-period=0 --force") {
				t.Fatalf("step %+v", r)
			}
			if !strings.Contains(r.Cost, "persistentvolumeclaims/frames -n edge may stay mounted or attached") {
				t.Errorf("cost %q does not name the claim", r.Cost)
			}
			gone := strings.HasPrefix(r.Summary, "Only if the node is gone for good")
			if tc.wantStop {
				if gone || r.LastResort || !strings.Contains(r.Summary, "On nodes/edge-1, find why its kubelet does not finish the stop") ||
					!strings.Contains(e.Pending, "Its grace period ended 1h ago") {
					t.Errorf("want the stop found on the node first; got %q / %q (last resort %v)", e.Pending, r.Summary, r.LastResort)
				}
				return
			}
			if !gone || !r.LastResort || strings.Contains(e.Pending, "does not finish") || !strings.Contains(r.Summary, "the kubelet of nodes/edge-1.") {
				t.Errorf("want the forced delete only if the node is gone for good; got %q / %q", e.Pending, r.Summary)
			}
		})
	}
}
