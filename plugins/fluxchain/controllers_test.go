package fluxchain_test

import (
	"context"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fluxNS is where the test control plane's Flux controllers run, as flux install puts them.
const fluxNS = "flux-system"

// controllerNames are the controllers whose objects flux-chain reads.
var controllerNames = []string{"source-controller", "kustomize-controller", "helm-controller"}

// controllersOnce installs the healthy controllers once per control plane.
var controllersOnce sync.Once

// ctrlState is what a controller's Deployment and pod say: available and ready, or down with
// restarts, a waiting reason and the last termination.
type ctrlState struct {
	down       bool
	restarts   int32
	waiting    string
	lastReason string
	lastExit   int32
	since      time.Time
}

// installControllers creates Flux's controllers in flux-system, each a Deployment labelled as
// flux install labels it with one available replica and one ready pod: the control plane is a
// cluster with Flux installed and running. No kube-controller-manager runs here, so the
// statuses written stay.
func installControllers(t testing.TB, f *fixture) {
	t.Helper()
	controllersOnce.Do(func() {
		f.namespace(fluxNS)
		// no controller-manager runs here to create the ServiceAccount pods are admitted with
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
		if _, err := f.kube.CoreV1().ServiceAccounts(fluxNS).Create(context.Background(), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		for _, name := range controllerNames {
			f.controller(name, ctrlState{})
		}
	})
}

// controller creates or updates the controller name's Deployment and pod with status st.
func (f *fixture) controller(name string, st ctrlState) {
	f.t.Helper()
	ctx := context.Background()
	apps, core := f.kube.AppsV1().Deployments(fluxNS), f.kube.CoreV1().Pods(fluxNS)
	labels := map[string]string{"app": name, "app.kubernetes.io/part-of": "flux", "app.kubernetes.io/component": name, "control-plane": "controller"}
	podLabels := map[string]string{"app": name}
	container := corev1.Container{Name: "manager", Image: "ghcr.io/fluxcd/" + name + ":v1.6.0"}
	d, err := apps.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		one := int32(1)
		d, err = apps.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: podLabels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: corev1.PodSpec{Containers: []corev1.Container{container}}}}}, metav1.CreateOptions{})
	}
	if err != nil {
		f.t.Fatal(err)
	}
	since := metav1.NewTime(st.since)
	if st.since.IsZero() {
		since = metav1.NewTime(time.Now().Add(-24 * time.Hour))
	}
	avail := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
		Message: "Deployment has minimum availability.", LastTransitionTime: since, LastUpdateTime: since}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if st.down {
		avail.Status, avail.Reason, avail.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
		d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 1
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{avail}
	if _, err := apps.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	podName := name + "-6b8f9c7d4-abcde"
	p, err := core.Get(ctx, podName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		p, err = core.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podName, Labels: podLabels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{container}}}, metav1.CreateOptions{})
	}
	if err != nil {
		f.t.Fatal(err)
	}
	cs := corev1.ContainerStatus{Name: "manager", Image: container.Image, ImageID: container.Image, Ready: !st.down, RestartCount: st.restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: since}}}
	if st.waiting != "" {
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: st.waiting, Message: "back-off 5m0s restarting failed container=manager"}}
	}
	if st.lastReason != "" {
		finished := metav1.NewTime(time.Now().Add(-3 * time.Minute))
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: st.lastReason, ExitCode: st.lastExit,
			StartedAt: metav1.NewTime(finished.Add(-time.Minute)), FinishedAt: finished}}
	}
	ready := corev1.ConditionTrue
	if st.down {
		ready = corev1.ConditionFalse
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{cs},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: since}}}
	if _, err := core.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// breakController sets name's state to st for the test, and restores it healthy after.
func (f *fixture) breakController(name string, st ctrlState) {
	f.t.Helper()
	f.controller(name, st)
	f.t.Cleanup(func() { f.controller(name, ctrlState{}) })
}
