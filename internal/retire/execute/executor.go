// Package execute carries out the live steps of a retirement plan (internal/retire) that a
// change leaves to a person: evicting a pod left over from a drain and deleting a retained
// object. It is the only part of safe-retire that acts on a cluster: every step re-reads what
// it depends on, is bound to the version it checked (Bound), and refuses rather than forces.
package execute

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
	"github.com/kubeforensics/suite/internal/retire"
	"github.com/kubeforensics/suite/internal/retire/helmjudge"
)

// Executor carries out the live steps of a plan that a change leaves to a person: stage 2,
// evicting a pod left over from before the drain (EvictDrainedPod), and stage 4, deleting a
// retained object (DeleteChecked). Unlike the rest of this package it acts on a cluster; each
// step re-reads what it depends on right before acting, binds the act to the UID and
// resourceVersion it is bound to (see Bound), and refuses rather than forces.
type Executor struct {
	Clients *cluster.Clients
	// Planner renders the commands a refusal points to, pinned to the same cluster.
	Planner retire.Planner
	// PodGoneTimeout bounds the wait for an evicted pod to terminate; zero means two minutes.
	PodGoneTimeout time.Duration
}

// DeleteChecked re-reads everything stage 4 depends on and deletes rm's object only if it is
// unchanged in the ways that matter — not Terminating, in no Kustomization's inventory, for a
// claim mounted by no pod, for a HelmRelease suspended (else deleting it uninstalls its
// chart) — and at the version bound (see Bound): the delete carries its UID and resourceVersion
// as preconditions. A version that differs, found by the re-read or refused by the API server,
// is a *ChangedError naming what changed.
func (e Executor) DeleteChecked(ctx context.Context, rm *retire.Removal, bound Bound) error {
	c := e.Clients
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return fmt.Errorf("discovering the API: %w", err)
	}
	res, ok := catalog.ForGroupKind(schema.GroupKind{Group: rm.Object.Group, Kind: rm.Object.Kind})
	if !ok {
		return fmt.Errorf("the API no longer serves %s", rm.Object.GroupKind())
	}
	var ri dynamic.ResourceInterface = c.Dynamic.Resource(res.GVR())
	if res.Namespaced {
		ri = c.Dynamic.Resource(res.GVR()).Namespace(rm.Object.Namespace)
	}
	obj, err := ri.Get(ctx, rm.Object.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-reading %s: %w", rm.Object, err)
	}
	pre, err := preconditions(rm.Object, bound, obj)
	if err != nil {
		return err
	}
	if obj.GetDeletionTimestamp() != nil {
		return fmt.Errorf("%s is already Terminating", rm.Object)
	}
	if err := e.notInInventory(ctx, rm.ID); err != nil {
		return err
	}
	if err := e.helmSuspended(ctx, rm, res.GVR()); err != nil {
		return err
	}
	if rm.Object.GroupKind() == "PersistentVolumeClaim" {
		users, _, gaps := finalizers.New(c, catalog).ClaimConsumers(ctx, rm.Object.Namespace, rm.Object.Name)
		if len(gaps) > 0 {
			return fmt.Errorf("could not check who mounts %s: %s", rm.Object, strings.Join(report.GapLines(gaps), "; "))
		}
		if len(users) > 0 {
			return fmt.Errorf("pod %s still mounts %s: drain it first (stage 2)", users[0].Object.Name, rm.Object)
		}
	}
	err = ri.Delete(ctx, rm.Object.Name, metav1.DeleteOptions{Preconditions: pre})
	if err == nil {
		return nil
	}
	return conflict(ctx, rm.Object, bound, obj.Object, fmt.Errorf("deleting %s: %w", rm.Object, err), func(ctx context.Context) (map[string]any, error) {
		now, err := ri.Get(ctx, rm.Object.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return now.Object, nil
	})
}

// helmSuspended fails unless rm is not a HelmRelease or its live spec.suspend is true:
// helm-controller uninstalls the release of a HelmRelease deleted unsuspended, deleting every
// object its chart installed, which stage 4 must never do as a side effect.
func (e Executor) helmSuspended(ctx context.Context, rm *retire.Removal, gvr schema.GroupVersionResource) error {
	if rm.Object.GroupKind() != helmjudge.ReleaseKind {
		return nil
	}
	hr, err := e.Clients.Dynamic.Resource(gvr).Namespace(rm.Object.Namespace).Get(ctx, rm.Object.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-reading %s: %w", rm.Object, err)
	}
	suspended, _, err := unstructured.NestedBool(hr.Object, "spec", "suspend")
	if err != nil || !suspended {
		return fmt.Errorf("%s is not suspended: deleting it uninstalls its release and everything the chart installed; suspend it first: %s", rm.Object,
			e.Planner.Suspend(rm.Object))
	}
	return nil
}

// notInInventory re-reads every Kustomization and fails if any still lists id: Flux still
// manages the object and would recreate it.
func (e Executor) notInInventory(ctx context.Context, id string) error {
	objs, err := flux.Read(ctx, e.Clients.Dynamic, "")
	if err != nil {
		return fmt.Errorf("re-reading the Kustomizations: %w", err)
	}
	for _, ks := range objs.Kustomizations {
		if ks.Status.Inventory == nil {
			continue
		}
		for _, entry := range ks.Status.Inventory.Entries {
			if entry.ID == id {
				return fmt.Errorf("Kustomization %s/%s still lists %s in its inventory: merge stage 3 and wait for it to apply", ks.Namespace, ks.Name, id)
			}
		}
	}
	return nil
}
