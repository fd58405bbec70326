package whyterminating_test

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// readyNode is a node whose kubelet posts: Ready, with a lease in kube-node-lease that
// postKubelet renews as a kubelet would every 10s.
const readyNode = "worker-ready"

// createReadyNode registers readyNode with a Ready condition and a fresh lease, once per run.
func createReadyNode(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	core := kc.Kube.CoreV1()
	n, err := core.Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: readyNode, Labels: map[string]string{"kubernetes.io/hostname": readyNode}}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		postKubelet(t)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: readyNode, Namespace: corev1.NamespaceNodeLease,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptrTo(readyNode), LeaseDurationSeconds: ptrTo(int32(40))}}
	if _, err := kc.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, lease, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	postKubelet(t)
}

// postKubelet does what a kubelet does: renew its lease and post a Ready condition. The node
// lifecycle controller writes to the node too, so a conflict is retried.
func postKubelet(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		leases := kc.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease)
		l, err := leases.Get(ctx, readyNode, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.NewMicroTime(time.Now())
		l.Spec.RenewTime = &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := kc.Kube.CoreV1().Nodes().Get(ctx, readyNode, metav1.GetOptions{})
		if err != nil {
			return err
		}
		beat := metav1.Now()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: beat, LastTransitionTime: beat}}
		_, err = kc.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// createPodOn creates a pod bound to node with the grace period a long-draining workload asks for.
func createPodOn(t *testing.T, ns, name, node string, grace int64) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/name": name}},
		Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{Name: "c", Image: "registry.example/" + name + ":v1"}}}}
	if _, err := kc.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { forceDeletePod(ns, name) })
}

func forceDeletePod(ns, name string) {
	zero := int64(0)
	_ = kc.Kube.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
}

// A pod inside its grace period on a Ready node whose kubelet posts is shutting down, not
// stuck: its own verdict, exit 0, and no forced deletion. Operators force these
// (https://github.com/gardener/gardener/pull/383 forces only pods Terminating "longer than their
// deletion grace period allows"; a forced delete of a pod still stopping can start a second
// copy of a StatefulSet pod while the first still writes).
func TestPodInGracePeriodIsDeleting(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createReadyNode(t)
	createNamespace(t, "draining")
	createPodOn(t, "draining", "kafka-0", readyNode, 600)
	if err := kc.Kube.CoreV1().Pods("draining").Delete(ctx, "kafka-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	postKubelet(t)
	out, _, code := run(t, "pod", "kafka-0", "-n", "draining")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	wantAll(t, out, []string{
		"pods/kafka-0 -n draining Deleting for",
		"deleting, not stuck: its deletion progresses on its own",
		"of its 600s grace period left",
		"evidence: node worker-ready is Ready and its kubelet renewed its lease",
		"The pod is shutting down",
		"verdict: DELETING (exit 0)",
	}, []string{"--force", "last resort", "STUCK"})
}

// Under ordered namespace deletion (KEP-5080, https://github.com/kubernetes/kubernetes/pull/130035,
// on by default since Kubernetes 1.33) the namespace controller deletes pods first and the
// rest only once they are gone: a ConfigMap left while a pod stops is waiting, not a blocker.
func TestOrderedNamespaceDeletionWaitsForPods(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	createReadyNode(t)
	createNamespace(t, "ordered")
	createPodOn(t, "ordered", "worker", readyNode, 600)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "worker-settings", Namespace: "ordered"}}
	if _, err := kc.Kube.CoreV1().ConfigMaps("ordered").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.Kube.CoreV1().Namespaces().Delete(ctx, "ordered", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace controller to delete the pod first", func(ctx context.Context) (bool, error) {
		p, err := kc.Kube.CoreV1().Pods("ordered").Get(ctx, "worker", metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, nil
	})
	postKubelet(t)
	out, _, code := run(t, "namespace", "ordered")
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out)
	}
	wantAll(t, out, []string{
		"namespaces/ordered Deleting for",
		"evidence: 1 pod(s) are shutting down within their grace period",
		"waiting configmaps -n ordered: ",
		"the namespace controller deletes them once the namespace's pods are gone (ordered namespace deletion)",
		"worker-settings",
		"verdict: DELETING (exit 0)",
	}, []string{"blocked by configmaps", "--force", "last resort", "/finalize"})
}
