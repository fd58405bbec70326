package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubeforensics/suite/internal/testsupport/fluxcontrollers"
	"github.com/kubeforensics/suite/internal/testsupport/testenv"
)

// healthyRevision is the revision the healthy cluster's source serves and its Kustomization
// applied.
const healthyRevision = "main@sha1:1111111111111111111111111111111111111111"

// startHealthy starts a control plane with the Flux CRDs and a Ready chain (a GitRepository
// and the flux-system Kustomization applied at its revision), and a headlamp namespace with
// nothing Terminating in it. On failure nothing is left running.
func startHealthy(ctx context.Context, name string) (*testenv.Env, error) {
	e, err := testenv.Start(ctx, testenv.Options{ContextName: name})
	if err != nil {
		return nil, err
	}
	if err := seedHealthy(ctx, e); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

func seedHealthy(ctx context.Context, e *testenv.Env) error {
	if err := e.InstallFluxCRDs(ctx); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(e.RESTConfig)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(e.RESTConfig)
	if err != nil {
		return err
	}
	for _, ns := range []string{"flux-system", "headlamp"} {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	// Flux's controllers run and are ready: flux-chain judges a chain HEALTHY only when the
	// controllers writing its status are alive (internal/flux/liveness.go).
	if err := fluxcontrollers.InstallHealthy(ctx, kube, "flux-system"); err != nil {
		return err
	}
	now := time.Now().UTC().Format(time.RFC3339)
	ready := map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "Applied revision: " + healthyRevision,
		"lastTransitionTime": now, "observedGeneration": int64(1)}
	repo := map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": "flux-system", "namespace": "flux-system"},
		"spec":     map[string]any{"url": "https://git.example.com/platform.git", "interval": "1m"},
		"status": map[string]any{"observedGeneration": int64(1), "conditions": []any{ready},
			"artifact": map[string]any{"revision": healthyRevision, "path": "gitrepository/flux-system/flux-system/1111.tar.gz",
				"url":    "http://source-controller.flux-system.svc/gitrepository/flux-system/flux-system/1111.tar.gz",
				"digest": "sha256:" + fmt.Sprintf("%064d", 2), "lastUpdateTime": now}},
	}
	ks := map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": "flux-system", "namespace": "flux-system"},
		"spec": map[string]any{"interval": "10m", "path": "./clusters/healthy", "prune": true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": "flux-system"}},
		"status": map[string]any{"observedGeneration": int64(1), "conditions": []any{ready},
			"lastAppliedRevision": healthyRevision, "lastAttemptedRevision": healthyRevision},
	}
	for _, o := range []struct {
		gvr schema.GroupVersionResource
		obj map[string]any
	}{
		{schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}, repo},
		{schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}, ks},
	} {
		if err := createWithStatus(ctx, dyn, o.gvr, o.obj); err != nil {
			return err
		}
	}
	return nil
}

// createWithStatus creates obj, then writes its status, which a create ignores.
func createWithStatus(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj map[string]any) error {
	u := &unstructured.Unstructured{Object: obj}
	ri := dyn.Resource(gvr).Namespace(u.GetNamespace())
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating %s/%s: %w", gvr.Resource, u.GetName(), err)
	}
	created.Object["status"] = obj["status"]
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing the status of %s/%s: %w", gvr.Resource, u.GetName(), err)
	}
	return nil
}
