package incident

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// createDeployment creates the headlamp Deployment whose pod mounts the claim. Its pod
// tolerates an unreachable node forever: the local node has no kubelet, and the pod must not
// be evicted while the demo or a test looks at it.
func createDeployment(ctx context.Context, c *Clients) error {
	one := int32(1)
	labels := map[string]string{"app.kubernetes.io/name": "headlamp"}
	tolerations := []corev1.Toleration{
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: Deployment, Namespace: Namespace, Labels: fluxLabels()},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Tolerations: tolerations,
					Containers: []corev1.Container{{
						Name: "headlamp", Image: "ghcr.io/headlamp-k8s/headlamp:v0.30.0",
						VolumeMounts: []corev1.VolumeMount{{Name: Volume, MountPath: "/headlamp/plugins"}},
					}},
					Volumes: []corev1.Volume{{Name: Volume, VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: Claim},
					}}},
				},
			},
		},
	}
	if _, err := c.Kube.AppsV1().Deployments(Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating deployments.apps/%s -n %s: %w", Deployment, Namespace, err)
	}
	return nil
}

// waitForPod waits for the ReplicaSet controller to create the headlamp pod.
func waitForPod(ctx context.Context, c *Clients) (*corev1.Pod, error) {
	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=headlamp"})
		if err != nil || len(pods.Items) == 0 {
			return false, nil
		}
		pod = &pods.Items[0]
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the headlamp pod (is kube-controller-manager running?): %w", err)
	}
	return pod, nil
}

// bindAndRun binds the pod to the node through pods/binding, as the scheduler does, and
// writes a Running status, as a kubelet would.
func bindAndRun(ctx context.Context, c *Clients, pod *corev1.Pod) error {
	core := c.Kube.CoreV1()
	if pod.Spec.NodeName == "" {
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}, Target: corev1.ObjectReference{Kind: "Node", Name: NodeName}}
		if err := core.Pods(pod.Namespace).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("binding pod %s to %s: %w", pod.Name, NodeName, err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := core.Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &now
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		_, err = core.Pods(pod.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err == nil, nil
	})
}
