// Package fluxcontrollers puts Flux's controllers on a test control plane as flux install
// leaves them: a Deployment per controller, labelled as Flux labels it, with one pod whose
// status says running and ready (or down, restarting, OOMKilled). No kubelet or
// kube-controller-manager runs on the test control planes that use it, so the statuses
// written here stay; flux-chain's liveness check (internal/flux/liveness.go) reads them.
package fluxcontrollers

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Names are the controllers whose objects flux-chain reads.
var Names = []string{"source-controller", "kustomize-controller", "helm-controller"}

// State is what a controller's Deployment and pod say: available and ready (the zero value),
// or down with restarts, a waiting reason and the last termination.
type State struct {
	Down       bool
	Restarts   int32
	Waiting    string
	LastReason string
	LastExit   int32
	// Since is when the Deployment's and pod's conditions last moved; zero: a day ago.
	Since time.Time
}

// InstallHealthy creates namespace (if missing), a ServiceAccount per controller with the
// RBAC flux install gives it (cluster-admin, bound by the cluster-reconciler binding: the
// controllers may update, and so remove finalizers from, what they reconcile), and every
// controller of Names, healthy.
func InstallHealthy(ctx context.Context, kube kubernetes.Interface, namespace string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", namespace, err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "cluster-reconciler-" + namespace},
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"}}
	for _, name := range Names {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ServiceAccount %s/%s: %w", namespace, name, err)
		}
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{Kind: "ServiceAccount", Name: name, Namespace: namespace})
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating ClusterRoleBinding %s: %w", binding.Name, err)
	}
	for _, name := range Names {
		if err := Set(ctx, kube, namespace, name, State{}); err != nil {
			return err
		}
	}
	return nil
}

// Set creates or updates the controller name's Deployment and pod in namespace with status st.
func Set(ctx context.Context, kube kubernetes.Interface, namespace, name string, st State) error {
	apps, core := kube.AppsV1().Deployments(namespace), kube.CoreV1().Pods(namespace)
	labels := map[string]string{"app": name, "app.kubernetes.io/part-of": "flux", "app.kubernetes.io/component": name, "control-plane": "controller"}
	podLabels := map[string]string{"app": name}
	container := corev1.Container{Name: "manager", Image: "ghcr.io/fluxcd/" + name + ":v1.6.0"}
	spec := corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{container}}
	d, err := apps.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		one := int32(1)
		d, err = apps.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: podLabels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: spec}}}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("deployment %s/%s: %w", namespace, name, err)
	}
	since := metav1.NewTime(st.Since)
	if st.Since.IsZero() {
		since = metav1.NewTime(time.Now().Add(-24 * time.Hour))
	}
	avail := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
		Message: "Deployment has minimum availability.", LastTransitionTime: since, LastUpdateTime: since}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if st.Down {
		avail.Status, avail.Reason, avail.Message = corev1.ConditionFalse, "MinimumReplicasUnavailable", "Deployment does not have minimum availability."
		d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.UnavailableReplicas = 0, 0, 1
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{avail}
	if _, err := apps.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("status of deployment %s/%s: %w", namespace, name, err)
	}
	podName := name + "-6b8f9c7d4-abcde"
	p, err := core.Get(ctx, podName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		p, err = core.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podName, Labels: podLabels}, Spec: spec}, metav1.CreateOptions{})
	}
	if err != nil {
		return fmt.Errorf("pod %s/%s: %w", namespace, podName, err)
	}
	p.Status = podStatus(st, container.Image, since)
	if _, err := core.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("status of pod %s/%s: %w", namespace, podName, err)
	}
	return nil
}

// podStatus is the status the kubelet would write for a controller pod in state st.
func podStatus(st State, image string, since metav1.Time) corev1.PodStatus {
	cs := corev1.ContainerStatus{Name: "manager", Image: image, ImageID: image, Ready: !st.Down, RestartCount: st.Restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: since}}}
	if st.Waiting != "" {
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: st.Waiting, Message: "back-off 5m0s restarting failed container=manager"}}
	}
	if st.LastReason != "" {
		finished := metav1.NewTime(time.Now().Add(-3 * time.Minute))
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: st.LastReason, ExitCode: st.LastExit,
			StartedAt: metav1.NewTime(finished.Add(-time.Minute)), FinishedAt: finished}}
	}
	ready := corev1.ConditionTrue
	if st.Down {
		ready = corev1.ConditionFalse
	}
	return corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{cs},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: since}}}
}
