package saferetire_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

// Stage 2 honours a PodDisruptionBudget: with maxUnavailable 0 over the StatefulSet's running
// pod, the API server refuses the eviction and the run stops (exit 1) naming the budget and
// what to do; nothing is deleted, neither the pod nor the claim. Once the budget is relaxed,
// the same run evicts the pod and deletes the claim. kube-controller-manager's disruption
// controller computes what the budget allows.
func TestExecuteStage2Budget(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	ns := namespace(t, "retire2pdb")
	old := leftOverPod(t, ns)
	drainTemplate(t, ns, "db")
	running(t, old)
	zero := intstr.FromInt32(0)
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &zero, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
	}
	if _, err := kc.Kube.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	budgetObserved(t, ns, "db")
	standInKubelet(t, old)
	r, base := retainedRepo(t, ns)

	out, errOut, code := confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 1 {
		t.Fatalf("budget allows nothing: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "STOPPED at stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod db-0",
		"pod "+ns+"/db-0: PodDisruptionBudget poddisruptionbudgets.policy/db -n "+ns+" (maxUnavailable 0: 0 disruptions allowed now",
		"refuses its eviction: safe-retire does not force past a disruption budget",
		"kubectl --kubeconfig="+env.Kubeconfig+" --context="+env.Context+" -n "+ns+" get poddisruptionbudget db", "verdict: UNSAFE (exit 1)")
	if p, err := kc.Kube.CoreV1().Pods(ns).Get(ctx, "db-0", metav1.GetOptions{}); err != nil || p.UID != old.UID || p.DeletionTimestamp != nil {
		t.Fatalf("the pod a budget protects was touched: %v %v", p, err)
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data", metav1.GetOptions{}); err != nil {
		t.Fatalf("claim gone although stage 2 stopped: %v", err)
	}

	relaxBudget(t, ns, "db")
	out, errOut, code = confirmed(t, "--repo", r.Dir, "--base", base, "-n", ns)
	if code != 0 {
		t.Fatalf("budget relaxed: exit %d\n%s\n%s", code, out, errOut)
	}
	contains(t, out, "done stage 2 (drain) of PersistentVolumeClaim "+ns+"/data: evict pod db-0",
		"done stage 4 (delete by hand) of PersistentVolumeClaim "+ns+"/data")
	waitPod(t, ns, "db-0", old.UID)
}

// running does the kubelet's part of starting pod: Running and Ready, so a budget guards it
// (the Eviction API lets a Pending pod go whatever its budget says).
func running(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	pods := kc.Kube.CoreV1().Pods(pod.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(context.Background(), pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		_, err = pods.UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// budgetObserved waits until the disruption controller has computed budget ns/name's status
// for its current spec.
func budgetObserved(t *testing.T, ns, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := kc.Kube.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && p.Status.ObservedGeneration == p.Generation && p.Status.ExpectedPods == 1, nil
	})
	if err != nil {
		t.Fatalf("the disruption controller never observed budget %s/%s: %v", ns, name, err)
	}
}

// relaxBudget lets budget ns/name allow one disruption, whether or not the node's lifecycle
// controller has marked the pod unready since (the node has no kubelet).
func relaxBudget(t *testing.T, ns, name string) {
	t.Helper()
	budgets := kc.Kube.PolicyV1().PodDisruptionBudgets(ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := budgets.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		one, always := intstr.FromInt32(1), policyv1.AlwaysAllow
		p.Spec.MaxUnavailable, p.Spec.UnhealthyPodEvictionPolicy = &one, &always
		_, err = budgets.Update(context.Background(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	budgetObserved(t, ns, name)
}
