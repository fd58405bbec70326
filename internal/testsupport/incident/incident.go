// Package incident replays the incident that started this project on a control plane: a
// Deployment's pod mounts claim headlamp/headlamp as volume plugins-dir, Flux pruned the claim,
// and kubernetes.io/pvc-protection keeps it Terminating; the `apps` Kustomization fails its
// health check on it while its dependents wait; and three CRDs all named Backup shadow each
// other. The demo and the integration tests seed the same state through it.
package incident

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The names the incident uses.
const (
	Namespace  = "headlamp"
	Claim      = "headlamp"
	Volume     = "plugins-dir"
	Deployment = "headlamp"
	NodeName   = "worker-1"
	FluxNS     = "flux-system"
	AppsKS     = "apps"
)

// Incident is what Seed created, for assertions.
type Incident struct {
	// Pod is the name of the pod that mounts the claim.
	Pod string
	// PersistentVolume is the volume bound to the claim.
	PersistentVolume string
}

// Clients bundles what seeding needs.
type Clients struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// NewClients builds seeding clients for cfg.
func NewClients(cfg *rest.Config) (*Clients, error) {
	k, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building client: %w", err)
	}
	d, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building dynamic client: %w", err)
	}
	return &Clients{Kube: k, Dynamic: d}, nil
}

// SeedStuckClaim creates the headlamp workload with its claim and volume, binds the pod to a
// node as a scheduler would, marks it Running as a kubelet would, then deletes the claim.
// kube-controller-manager must run (the Deployment and ReplicaSet controllers make the pod).
// It returns once the claim carries a deletionTimestamp and still exists.
func SeedStuckClaim(ctx context.Context, c *Clients) (*Incident, error) {
	if err := createBase(ctx, c); err != nil {
		return nil, err
	}
	if err := createDeployment(ctx, c); err != nil {
		return nil, err
	}
	pod, err := waitForPod(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := bindAndRun(ctx, c, pod); err != nil {
		return nil, err
	}
	if err := c.Kube.CoreV1().PersistentVolumeClaims(Namespace).Delete(ctx, Claim, metav1.DeleteOptions{}); err != nil {
		return nil, fmt.Errorf("deleting claim %s/%s: %w", Namespace, Claim, err)
	}
	// The claim must stay: pvc-protection holds it while the bound pod mounts it.
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		pvc, err := c.Kube.CoreV1().PersistentVolumeClaims(Namespace).Get(ctx, Claim, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, fmt.Errorf("claim %s/%s was deleted: pvc-protection did not hold it", Namespace, Claim)
		}
		return err == nil && pvc.DeletionTimestamp != nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for claim %s/%s to be Terminating: %w", Namespace, Claim, err)
	}
	return &Incident{Pod: pod.Name, PersistentVolume: "pv-" + Claim}, nil
}

// fluxLabels are the labels kustomize-controller sets on what Kustomization apps applies.
func fluxLabels() map[string]string {
	return map[string]string{
		"kustomize.toolkit.fluxcd.io/name":      AppsKS,
		"kustomize.toolkit.fluxcd.io/namespace": FluxNS,
	}
}

// createBase makes the namespace, a node, and a volume pre-bound to the claim.
func createBase(ctx context.Context, c *Clients) error {
	core := c.Kube.CoreV1()
	if _, err := core.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: NodeName, Labels: map[string]string{"kubernetes.io/hostname": NodeName}}}
	if _, err := core.Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating node %s: %w", NodeName, err)
	}
	size := resource.MustParse("256Mi")
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv-" + Claim},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              "local",
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/headlamp-plugins"}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: Namespace, Name: Claim, APIVersion: "v1"},
		},
	}
	if _, err := core.PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating persistentvolumes/%s: %w", pv.Name, err)
	}
	sc := "local"
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: Claim, Namespace: Namespace, Labels: fluxLabels()},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &sc,
			VolumeName:       pv.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}
	if _, err := core.PersistentVolumeClaims(Namespace).Create(ctx, pvc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating claim %s/%s: %w", Namespace, Claim, err)
	}
	return nil
}
