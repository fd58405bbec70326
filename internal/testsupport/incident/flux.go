package incident

import (
	"context"
	"fmt"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	"github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Revision is the source revision every Kustomization of the seeded chain applies.
const Revision = "main@sha1:9c10930c5b2e4d0f8a7b6c5d4e3f2a1b0c9d8e7f"

// HealthCheckMessage is the apps Kustomization's failure, as kustomize-controller wrote it.
const HealthCheckMessage = "health check failed after 20m0.036985668s: timeout waiting for: [PersistentVolumeClaim/headlamp/headlamp status: 'Terminating']"

// Tier is one Kustomization of the seeded chain.
type Tier struct {
	Name      string
	DependsOn []string
	Wait      bool
	// Reason and Message set Ready=False; an empty Reason means Ready=True.
	Reason, Message string
	Inventory       []string
}

// Chain is the seeded Flux chain: flux-system → infra → apps (failing on the claim), two
// tiers waiting on apps, and a backup leaf that depends only on infra and stays healthy.
func Chain() []Tier {
	waiting := func(name string) Tier {
		return Tier{Name: name, DependsOn: []string{AppsKS}, Wait: true, Reason: meta.DependencyNotReadyReason,
			Message: fmt.Sprintf("dependency '%s/%s' is not ready", FluxNS, AppsKS)}
	}
	return []Tier{
		{Name: "flux-system", Wait: true},
		{Name: "infra", DependsOn: []string{"flux-system"}, Wait: true},
		{Name: AppsKS, DependsOn: []string{"infra"}, Wait: true, Reason: meta.HealthCheckFailedReason, Message: HealthCheckMessage,
			Inventory: []string{"headlamp_headlamp__PersistentVolumeClaim", "headlamp_headlamp_apps_Deployment", "_headlamp__Namespace"}},
		waiting("apps-wave-1"),
		waiting("monitoring"),
		{Name: "backup", DependsOn: []string{"infra"}, Wait: false},
	}
}

var (
	ksGVR  = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	gitGVR = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
)

// SeedFluxChain creates the GitRepository and the Kustomizations of Chain in flux-system and
// writes their statuses through the status subresource. The Flux CRDs must be installed.
func SeedFluxChain(ctx context.Context, c *Clients) error {
	if err := ensureNamespace(ctx, c, FluxNS); err != nil {
		return err
	}
	now := metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	repo := &sourcev1.GitRepository{
		TypeMeta:   metav1.TypeMeta{APIVersion: sourcev1.GroupVersion.String(), Kind: sourcev1.GitRepositoryKind},
		ObjectMeta: metav1.ObjectMeta{Name: FluxNS, Namespace: FluxNS},
		Spec:       sourcev1.GitRepositorySpec{URL: "https://git.example.com/platform.git", Interval: metav1.Duration{Duration: time.Minute}},
	}
	repo.Status.Artifact = &meta.Artifact{Revision: Revision, Path: "gitrepository/flux-system/flux-system/9c10930c.tar.gz", URL: "http://source-controller.flux-system.svc/gitrepository/flux-system/flux-system/9c10930c.tar.gz", Digest: "sha256:" + fmt.Sprintf("%064d", 1), LastUpdateTime: now}
	repo.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.SucceededReason, Message: "stored artifact for revision '" + Revision + "'", LastTransitionTime: now}}
	if err := createWithStatus(ctx, c, gitGVR, repo); err != nil {
		return err
	}
	for _, t := range Chain() {
		if err := createWithStatus(ctx, c, ksGVR, kustomization(t, now)); err != nil {
			return err
		}
	}
	return nil
}

func kustomization(t Tier, now metav1.Time) *kustomizev1.Kustomization {
	ks := &kustomizev1.Kustomization{
		TypeMeta:   metav1.TypeMeta{APIVersion: kustomizev1.GroupVersion.String(), Kind: kustomizev1.KustomizationKind},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, Namespace: FluxNS},
		Spec: kustomizev1.KustomizationSpec{
			Interval: metav1.Duration{Duration: 10 * time.Minute}, RetryInterval: &metav1.Duration{Duration: 2 * time.Minute},
			Timeout: &metav1.Duration{Duration: 20 * time.Minute}, Path: "./k8s/" + t.Name, Prune: true, Wait: t.Wait,
			SourceRef: kustomizev1.CrossNamespaceSourceReference{Kind: sourcev1.GitRepositoryKind, Name: FluxNS},
		},
	}
	for _, d := range t.DependsOn {
		ks.Spec.DependsOn = append(ks.Spec.DependsOn, kustomizev1.DependencyReference{Name: d})
	}
	ready := metav1.Condition{Type: meta.ReadyCondition, Status: metav1.ConditionTrue, Reason: meta.ReconciliationSucceededReason, Message: "Applied revision: " + Revision, LastTransitionTime: now, ObservedGeneration: 1}
	ks.Status.LastAppliedRevision = Revision
	if t.Reason != "" {
		ready.Status, ready.Reason, ready.Message = metav1.ConditionFalse, t.Reason, t.Message
	}
	ks.Status.ObservedGeneration = 1
	ks.Status.LastAttemptedRevision = Revision
	ks.Status.Conditions = []metav1.Condition{ready}
	if len(t.Inventory) > 0 {
		ks.Status.Inventory = &kustomizev1.ResourceInventory{}
		for _, id := range t.Inventory {
			ks.Status.Inventory.Entries = append(ks.Status.Inventory.Entries, kustomizev1.ResourceRef{ID: id, Version: "v1"})
		}
	}
	return ks
}

// createWithStatus creates obj and then writes its status, which a create ignores.
func createWithStatus(ctx context.Context, c *Clients, gvr schema.GroupVersionResource, obj runtime.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("converting %T: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: m}
	ri := c.Dynamic.Resource(gvr).Namespace(u.GetNamespace())
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = ri.Get(ctx, u.GetName(), metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("creating %s/%s -n %s: %w", gvr.GroupResource(), u.GetName(), u.GetNamespace(), err)
	}
	created.Object["status"] = m["status"]
	if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing status of %s/%s -n %s: %w", gvr.GroupResource(), u.GetName(), u.GetNamespace(), err)
	}
	return nil
}
