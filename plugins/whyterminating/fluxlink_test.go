package whyterminating_test

import (
	"context"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The remover of a stuck custom resource is a Deployment that Flux applies, and it is not ready;
// the Kustomization that would roll out its fix waits on a dependency that fails. The
// Kustomization's state replays https://github.com/bo0tzz/clusterfuck/issues/262 (an alert on
// Kustomization operators/cnpg-barman-cloud, Ready=False, reason DependencyNotReady, source
// flux-system, revision refs/heads/main@sha1:5e97…); its dependency's failure (a health check
// that timed out, as kustomize-controller words it) and the stuck object of the plugin's domain
// are built around it (the finalizer's name is illustrative). The remover's line names the
// Kustomization by its labels, its state, and flux-chain's root cause behind it, in text and JSON.
func TestRemoverManagedByWaitingKustomization(t *testing.T) {
	needEnv(t)
	ctx := context.Background()
	for _, ns := range []string{"operators", "cnpg-system", "pg"} {
		ensureNamespace(t, ns)
	}
	const rev = "refs/heads/main@sha1:5e973223478c0c663358bd30224c34be1db902db"
	createKustomization(t, "operators", "cnpg", nil, metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionFalse, Reason: meta.HealthCheckFailedReason,
		Message: "health check failed after 5m0s: timeout waiting for: [Deployment/cnpg-system/cnpg-cloudnative-pg status: 'InProgress']"}, rev)
	createKustomization(t, "operators", "cnpg-barman-cloud", []string{"cnpg"}, metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionFalse,
		Reason: meta.DependencyNotReadyReason, Message: "dependency 'operators/cnpg' is not ready"}, rev)

	gvr := applyCRD(t, crdSpec{group: "barmancloud.cnpg.io", kind: "ObjectStore", plural: "objectstores", namespaced: true, versions: []string{"v1"}})
	grantClusterRole(t, "barman-plugin-objectstores", []rbacv1.PolicyRule{
		{APIGroups: []string{"barmancloud.cnpg.io"}, Resources: []string{"objectstores", "objectstores/finalizers"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
	}, "cnpg-system", "plugin-barman-cloud", "")
	createWorkload(t, workloadSpec{ns: "cnpg-system", name: "barman-cloud", sa: "plugin-barman-cloud", replicas: 1})
	labels := `{"metadata":{"labels":{"kustomize.toolkit.fluxcd.io/name":"cnpg-barman-cloud","kustomize.toolkit.fluxcd.io/namespace":"operators"}}}`
	if _, err := kc.Kube.AppsV1().Deployments("cnpg-system").Patch(ctx, "barman-cloud", types.MergePatchType, []byte(labels), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kube.AppsV1().Deployments("cnpg-system").Delete(ctx, "barman-cloud", metav1.DeleteOptions{})
	})
	createStuck(t, gvr, "ObjectStore", "pg", "backups", "barmancloud.cnpg.io/objectstore", nil)

	out, _, code := run(t, "objectstores.barmancloud.cnpg.io", "backups", "-n", "pg")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	wantAll(t, out, []string{
		"controller: deployments.apps/barman-cloud -n cnpg-system ready 0/1",
		"managed by Flux Kustomization operators/cnpg-barman-cloud: Waiting",
		"via: labels kustomize.toolkit.fluxcd.io/name=cnpg-barman-cloud, kustomize.toolkit.fluxcd.io/namespace=operators on deployments.apps/barman-cloud -n cnpg-system",
		"Ready=False DependencyNotReady: dependency 'operators/cnpg' is not ready",
		"root cause: kustomizations.kustomize.toolkit.fluxcd.io/cnpg -n operators (",
		"HealthCheckFailed: health check failed after 5m0s: timeout waiting for: [Deployment/cnpg-system/cnpg-cloudnative-pg status: 'InProgress']",
	}, nil)
	js, _, _ := run(t, "objectstores.barmancloud.cnpg.io", "backups", "-n", "pg", "-o", "json")
	wantAll(t, js, []string{`"gitOps": {`, `"kind": "Kustomization"`, `"state": "Waiting"`, `"object": "kustomizations.kustomize.toolkit.fluxcd.io/cnpg -n operators"`}, nil)
}

// createKustomization creates a Kustomization in ns that builds from flux-system's
// GitRepository, and writes its Ready condition through the status subresource, as
// kustomize-controller does.
func createKustomization(t *testing.T, ns, name string, deps []string, ready metav1.Condition, rev string) {
	t.Helper()
	ctx := context.Background()
	ks := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: kustomizev1.KustomizationSpec{Interval: metav1.Duration{Duration: 10 * time.Minute}, Path: "./" + ns + "/" + name, Prune: true,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: "flux-system", Namespace: "flux-system"}},
	}
	for _, d := range deps {
		ks.Spec.DependsOn = append(ks.Spec.DependsOn, kustomizev1.DependencyReference{Name: d})
	}
	ready.LastTransitionTime, ready.ObservedGeneration = metav1.NewTime(time.Now().Add(-20*time.Minute).UTC().Truncate(time.Second)), 1
	ks.Status.ObservedGeneration, ks.Status.LastAttemptedRevision = 1, rev
	ks.Status.Conditions = []metav1.Condition{ready}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ks)
	if err != nil {
		t.Fatal(err)
	}
	ri := kc.Dynamic.Resource(kustomizev1.GroupVersion.WithResource("kustomizations")).Namespace(ns)
	created, err := ri.Create(ctx, &unstructured.Unstructured{Object: m}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ri.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	created.Object["status"] = m["status"]
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
