package whyterminating_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

// A pod with a deletionTimestamp and no finalizer waits for its kubelet; the local node has
// none, so the explanation says so and offers a forced deletion only as a last resort.
func TestPodWaitingForKubelet(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	core := kc.Kube.CoreV1()
	createNamespace(t, "graceful")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "graceful"},
		Spec:       corev1.PodSpec{NodeName: incident.NodeName, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if _, err := core.Pods("graceful").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		zero := int64(0)
		_ = core.Pods("graceful").Delete(ctx, "worker", metav1.DeleteOptions{GracePeriodSeconds: &zero})
	})
	grace := int64(30)
	if err := core.Pods("graceful").Delete(ctx, "worker", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "pod", "worker", "-n", "graceful")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"pods/worker -n graceful Terminating for",
		"with a grace period of 30s)",
		"The pod waits for the kubelet of nodes/worker-1 to confirm that its containers stopped (grace period 30s).",
		"last resort 1: Only if the node is gone for good",
		"$ kubectl --kubeconfig=" + env.Kubeconfig + " --context=" + env.Context + " -n graceful delete pod worker --grace-period=0 --force",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
}
