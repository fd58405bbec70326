// Package whyterminating_test is a corpus of stuck-object reports from public issue trackers,
// each replayed on a real control plane (kube-apiserver and kube-controller-manager) as the
// product's official install leaves it, and checked against the diagnosis the report's own
// thread arrived at. It is the honesty check of issue #38: the products here are not modelled
// anywhere else in the tests, and the expectations come from the reports, not from the tool.
//
// Files without a build tag are development cases. Files tagged `corpusopen` are development
// cases the tool still gets wrong (docs/why-terminating.md, "Corpus", lists the failure class
// of each). Files tagged `heldback` are the held-back third: chosen at random before anything
// ran, run once at the end, by the lead only. A spent held-back case (run once) loses its tag
// and runs with the development cases, or is tagged `corpusopen` when it fails.
package whyterminating_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/kubeforensics/suite/internal/testsupport/incident"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// env is the control plane shared by the corpus, kc its clients; both nil under -short.
var (
	env *testenv.Env
	kc  *incident.Clients
)

// nodeName is the one worker node of the replayed clusters; a simulated kubelet keeps it
// Ready (its lease renewed, its Ready condition posted) for the whole run, as a healthy
// cluster's nodes are.
const nodeName = "worker-1"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	os.Setenv("TZ", "UTC")
	flag.Parse()
	if testing.Short() || os.Getenv("KF_SKIP_INTEGRATION") != "" {
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e, err := testenv.Start(ctx, testenv.Options{ControllerManager: true, ContextName: "corpus"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the control plane:", err)
		return 1
	}
	defer func() { _ = e.Stop() }()
	c, err := incident.NewClients(e.RESTConfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env, kc = e, c
	if err := createNode(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "creating the worker node:", err)
		return 1
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				_ = postKubelet(context.Background())
			}
		}
	}()
	code := m.Run()
	close(stop)
	<-done
	return code
}

// createNode registers the worker node with its lease and a Ready condition.
func createNode(ctx context.Context) error {
	n, err := kc.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodeName,
		Labels: map[string]string{"kubernetes.io/hostname": nodeName, "kubernetes.io/os": "linux"}}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	holder, duration := nodeName, int32(40)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: nodeName, Namespace: corev1.NamespaceNodeLease,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration}}
	if _, err := kc.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, lease, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return postKubelet(ctx)
}

// postKubelet does what a kubelet does every few seconds: renew its lease and post Ready.
func postKubelet(ctx context.Context) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		leases := kc.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease)
		l, err := leases.Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.NewMicroTime(time.Now())
		l.Spec.RenewTime = &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := kc.Kube.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		beat := metav1.Now()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
			Message: "kubelet is posting ready status", LastHeartbeatTime: beat, LastTransitionTime: beat}}
		_, err = kc.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}
