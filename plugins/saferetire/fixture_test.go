package saferetire_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/testsupport/gittest"
	"github.com/kubeforensics/suite/internal/testsupport/incident"
)

const (
	pvcFile    = incident.ClaimFile
	deployFile = incident.DeploymentFile
)

var (
	fluxKS     = incident.KustomizationManifest
	claim      = incident.ClaimManifest
	deployment = incident.DeploymentManifest
	configMap  = incident.ConfigMapManifest
)

// incidentRepo is the GitOps repo of the incident (incident.RepoFiles).
func incidentRepo(t *testing.T) *gittest.Repo { return gittest.New(t, incident.RepoFiles()) }

// removeClaim deletes the claim's manifest from the working tree, as #2741 did.
func removeClaim(r *gittest.Repo) { r.Write(incident.ClaimRemoval()) }

var ksGVR = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}

// liveKS creates a Ready Kustomization with the given inventory in namespace ns.
func liveKS(t *testing.T, ns, name, path string, inventory ...string) {
	t.Helper()
	createKS(t, ns, name, map[string]any{"interval": "10m", "path": path, "prune": true,
		"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}}, inventory...)
}

// createKS creates a Ready Kustomization with the given spec and inventory in namespace ns.
func createKS(t *testing.T, ns, name string, spec map[string]any, inventory ...string) {
	t.Helper()
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}
	ri := kc.Dynamic.Resource(ksGVR).Namespace(ns)
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Kustomization %s/%s: %v", ns, name, err)
	}
	entries := []any{}
	for _, id := range inventory {
		entries = append(entries, map[string]any{"id": id, "v": "v1"})
	}
	created.Object["status"] = map[string]any{
		"inventory": map[string]any{"entries": entries},
		"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded", "message": "Applied",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}},
	}
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing status of Kustomization %s/%s: %v", ns, name, err)
	}
}

// namespace creates a fresh namespace for one test.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := prefix + "-" + strings.ToLower(fmt.Sprintf("%d", time.Now().UnixNano()%1000000))
	if _, err := kc.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// liveClaim creates claim ns/name, with the annotations given, and optionally a pod bound to
// the incident's node that mounts it.
func liveClaim(t *testing.T, ns, name string, ann map[string]string, mounted bool) {
	t.Helper()
	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: ann},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("256Mi")}},
		},
	}
	if _, err := kc.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !mounted {
		return
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-user", Namespace: ns},
		Spec: corev1.PodSpec{
			NodeName:    "worker-1",
			Containers:  []corev1.Container{{Name: "c", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes:     []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}},
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
	}
	if _, err := kc.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
