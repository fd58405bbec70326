package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
)

// A deleted pod's finalizer whose remover runs, on a node that no longer reports: the node is
// the blocker; the steps bring it back first, then the strip (naming what the pod records under
// the finalizer's domain), the logs last. A Ready node, a finished pod and a pod of a remover
// that does not run are left alone.
func TestPodNodeSilent(t *testing.T) {
	notReady := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-7"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown", LastTransitionTime: metav1.Now()}}}}
	ready := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gpu-8"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}}}
	pod := func(node, phase string) ownWord {
		return ownWord{obj: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "train-0", "namespace": "jobs", "annotations": map[string]any{"slinky.slurm.net/job-id": "4512", "other.io/x": "y"}},
			"spec":     map[string]any{"nodeName": node},
			"status":   map[string]any{"phase": phase}}}}
	}
	finalizer := func(healthy bool) Finalizer {
		strip := Remediation{Code: ReasonStripFinalizer, LastResort: true, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster"}
		return Finalizer{Name: "scheduler.slinky.slurm.net/finalizer", Domain: "scheduler.slinky.slurm.net",
			Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "slinky", Name: "bridge-controllers"}, Found: true, Healthy: healthy}},
			Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}, strip}, bypass: &strip}
	}
	o := subject{res: podsResource, obj: &metav1.ObjectMeta{Name: "train-0", Namespace: "jobs"}}
	x := kubeOnlyExplainer([]runtime.Object{notReady, ready}...)

	e := &Explanation{Finalizers: []Finalizer{finalizer(true)}}
	x.applyPodNodeSilent(context.Background(), o, e, pod("gpu-7", "Running"))
	f := e.Finalizers[0]
	if len(f.Blockers) != 1 || f.Blockers[0].Object.String() != "nodes/gpu-7" || f.Blockers[0].Code != ReasonNodeNotReporting {
		t.Fatalf("blockers %+v, want nodes/gpu-7 (node-not-reporting)", f.Blockers)
	}
	if !strings.Contains(f.Blockers[0].Reason, "is not Ready (NodeStatusUnknown") || !strings.Contains(f.Blockers[0].Reason, "it is Running") {
		t.Errorf("reason %q: want the node's state and the pod's phase", f.Blockers[0].Reason)
	}
	if got := remedyCodes(f.Remedies); len(got) != 3 || got[0] != "" || got[1] != ReasonStripFinalizer || got[2] != ReasonReadControllerLogs {
		t.Errorf("steps %q, want the node first, the strip, the logs last", got)
	}
	if !strings.HasPrefix(f.Remedies[0].Summary, "Bring nodes/gpu-7 back") {
		t.Errorf("first step %q", f.Remedies[0].Summary)
	}
	if c := f.Remedies[1].Cost; !strings.Contains(c, "slinky.slurm.net/job-id=4512") || strings.Contains(c, "other.io") {
		t.Errorf("strip cost %q: want the annotation under the finalizer's domain only", c)
	}

	// A core pod's own word is not read in full: the pod is read through the API.
	kubePod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "train-0", Namespace: "jobs"}, Spec: corev1.PodSpec{NodeName: "gpu-7"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	xp := kubeOnlyExplainer([]runtime.Object{notReady, kubePod}...)
	e = &Explanation{Finalizers: []Finalizer{finalizer(true)}}
	xp.applyPodNodeSilent(context.Background(), o, e, ownWord{})
	if len(e.Finalizers[0].Blockers) != 1 || e.Finalizers[0].Blockers[0].Object.String() != "nodes/gpu-7" {
		t.Errorf("pod read through the API: blockers %+v, want nodes/gpu-7", e.Finalizers[0].Blockers)
	}

	for _, tc := range []struct {
		name string
		f    Finalizer
		w    ownWord
	}{
		{"a Ready node", finalizer(true), pod("gpu-8", "Running")},
		{"a finished pod", finalizer(true), pod("gpu-7", "Failed")},
		{"a remover that does not run", finalizer(false), pod("gpu-7", "Running")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Explanation{Finalizers: []Finalizer{tc.f}}
			x.applyPodNodeSilent(context.Background(), o, e, tc.w)
			if len(e.Finalizers[0].Blockers) != 0 {
				t.Errorf("blockers %+v, want none", e.Finalizers[0].Blockers)
			}
		})
	}
}

// Only a gone or not-Ready node is silent: a Ready node whose lease looks old, or one that could
// not be read, is no evidence.
func TestNodeSilent(t *testing.T) {
	for _, tc := range []struct {
		n    nodeLiveness
		want bool
	}{
		{nodeLiveness{state: "no longer exists, so no kubelet will confirm"}, true},
		{nodeLiveness{state: "is not Ready (NodeStatusUnknown since 2026-09-10 22:41Z), so its kubelet may never confirm"}, true},
		{nodeLiveness{state: "is Ready, but its kubelet last renewed its lease 20h ago"}, false},
		{nodeLiveness{state: "is Ready", posting: true}, false},
		{nodeLiveness{state: "is not Ready (x)", gap: report.Gap{Op: report.OpGet, What: "reading nodes/n"}}, false},
	} {
		if got := nodeSilent(tc.n); got != tc.want {
			t.Errorf("nodeSilent(%q) = %v, want %v", tc.n.state, got, tc.want)
		}
	}
}

func TestRecordedUnder(t *testing.T) {
	got := recordedUnder("scheduler.slinky.slurm.net", map[string]string{"slinky.slurm.net/job-id": "1", "slurm.net/x": "2", "notslurm.net/y": "3", "kubectl.kubernetes.io/z": "4"})
	if strings.Join(got, ",") != "slinky.slurm.net/job-id=1,slurm.net/x=2" {
		t.Errorf("recordedUnder = %q", got)
	}
	if recordedUnder("finalizer", map[string]string{"a/b": "c"}) != nil {
		t.Error("a domainless finalizer records nothing")
	}
}
