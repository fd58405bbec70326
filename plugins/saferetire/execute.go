package saferetire

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/retire"
)

// execute carries out the live steps of the plan that the change leaves to a person: stage 2,
// deleting a pod left over from before the drain (deleteDrainedPod), then stage 4, deleting a
// retained object. It acts only on a SAFE gate, shows each step, asks (unless --yes), re-checks
// the step's preconditions right before acting — the pod's controller no longer mounts the
// claim; the object is still the one examined, no Kustomization's inventory lists it, no pod
// mounts it — and stops at the first surprise or refusal.
func (o *SafeRetireOptions) execute(ctx context.Context, res *Result) {
	defer res.finish()
	if res.Code() != 0 {
		res.Actions = append(res.Actions, Action{Step: "all steps", Outcome: "skipped", Detail: "the gate is not SAFE: nothing is carried out until it is"})
		return
	}
	in := bufio.NewReader(o.In)
	for _, rm := range res.Removals {
		if rm.Outcome != retire.Retained || rm.Live == nil || !rm.Live.Exists {
			continue
		}
		ref := rm.Object
		planner := retire.Planner{Target: o.target}
		if ref.GroupKind() == "PersistentVolumeClaim" {
			for _, b := range rm.Live.Consumers {
				pod := b.Object.Name
				a := Action{Step: fmt.Sprintf("stage 2 (drain) of %s: delete pod %s, left over from before the drain", ref, pod),
					Command: planner.DeletePodCommand(ref.Namespace, pod)}
				lost := "the pod's running process; its controller recreates it without the mount"
				if !o.step(res, in, a, lost, func() (string, error) { return o.deleteDrainedPod(ctx, &rm, pod) }) {
					return
				}
			}
		}
		a := Action{Step: "stage 4 (delete by hand) of " + ref.String(), Command: planner.DeleteCommand(&rm)}
		if !o.step(res, in, a, rm.Live.Cost, func() (string, error) { return "", o.deleteChecked(ctx, &rm) }) {
			return
		}
	}
}

// step shows one live step and what it loses, asks for confirmation (unless --yes), carries it
// out with act and records the outcome on res. It reports whether the run may go on: a
// declined or stopped step ends it.
func (o *SafeRetireOptions) step(res *Result, in *bufio.Reader, a Action, lost string, act func() (string, error)) bool {
	fmt.Fprintf(o.ErrOut, "step: %s\n  $ %s\n", a.Step, a.Command)
	if lost != "" {
		fmt.Fprintf(o.ErrOut, "  lost: %s\n", lost)
	}
	if !o.Yes && !confirm(o, in) {
		a.Outcome, a.Detail = "declined", "no confirmation: stopping here"
		res.Actions = append(res.Actions, a)
		return false
	}
	detail, err := act()
	if err != nil {
		a.Outcome, a.Detail = "stopped", err.Error()
		res.Actions = append(res.Actions, a)
		return false
	}
	a.Outcome, a.Detail = "done", detail
	res.Actions = append(res.Actions, a)
	return true
}

func confirm(o *SafeRetireOptions, in *bufio.Reader) bool {
	fmt.Fprint(o.ErrOut, "  type yes to carry out this step: ")
	line, _ := in.ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

// deleteChecked re-reads everything the step depends on and deletes the object only if it is
// unchanged in the ways that matter, pinned to the UID it re-read.
func (o *SafeRetireOptions) deleteChecked(ctx context.Context, rm *retire.Removal) error {
	c := o.clients
	catalog, err := kinds.Discover(c.Discovery)
	if err != nil {
		return fmt.Errorf("discovering the API: %w", err)
	}
	res, ok := catalog.ForGroupKind(schema.GroupKind{Group: rm.Object.Group, Kind: rm.Object.Kind})
	if !ok {
		return fmt.Errorf("the API no longer serves %s", rm.Object.GroupKind())
	}
	ri := c.Metadata.Resource(res.GVR())
	get := ri.Get
	del := ri.Delete
	if res.Namespaced {
		get, del = ri.Namespace(rm.Object.Namespace).Get, ri.Namespace(rm.Object.Namespace).Delete
	}
	obj, err := get(ctx, rm.Object.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("re-reading %s: %w", rm.Object, err)
	}
	if obj.GetDeletionTimestamp() != nil {
		return fmt.Errorf("%s is already Terminating", rm.Object)
	}
	if err := o.notInInventory(ctx, rm.ID); err != nil {
		return err
	}
	if rm.Object.GroupKind() == "PersistentVolumeClaim" {
		users, _, gaps := finalizers.New(c, catalog).ClaimConsumers(ctx, rm.Object.Namespace, rm.Object.Name)
		if len(gaps) > 0 {
			return fmt.Errorf("could not check who mounts %s: %s", rm.Object, strings.Join(gaps, "; "))
		}
		if len(users) > 0 {
			return fmt.Errorf("pod %s still mounts %s: drain it first (stage 2)", users[0].Object.Name, rm.Object)
		}
	}
	uid := obj.GetUID()
	err = del(ctx, rm.Object.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%s was replaced since it was checked: %w", rm.Object, err)
	}
	if err != nil {
		return fmt.Errorf("deleting %s: %w", rm.Object, err)
	}
	return nil
}

// notInInventory re-reads every Kustomization and fails if any still lists id: Flux still
// manages the object and would recreate it.
func (o *SafeRetireOptions) notInInventory(ctx context.Context, id string) error {
	objs, err := flux.Read(ctx, o.clients.Dynamic, "")
	if err != nil {
		return fmt.Errorf("re-reading the Kustomizations: %w", err)
	}
	for _, ks := range objs.Kustomizations {
		if ks.Status.Inventory == nil {
			continue
		}
		for _, e := range ks.Status.Inventory.Entries {
			if e.ID == id {
				return fmt.Errorf("Kustomization %s/%s still lists %s in its inventory: merge stage 3 and wait for it to apply", ks.Namespace, ks.Name, id)
			}
		}
	}
	return nil
}
