package finalizers

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/report"
)

// finalizerWords splits a finalizer's name into its lower-case words: at dots, slashes, dashes
// and underscores (`starrocks.com.starrockswarehouse/protection` → starrocks, com,
// starrockswarehouse, protection).
func finalizerWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '.' || r == '/' || r == '-' || r == '_' })
}

// namesKind reports a finalizer's name that has the kind (or its plural) as one of its words.
func namesKind(name, kind, plural string) bool {
	words := finalizerWords(name)
	return slices.Contains(words, strings.ToLower(kind)) || (plural != "" && slices.Contains(words, strings.ToLower(plural)))
}

// heldForOwner finds the owner a finalizer is held for: the object's controller owner, when
// the finalizer's name names that owner's kind. The owner's controller put it on its dependent
// to guard the dependent while it tears the owner down, and removes it then, not on the
// dependent's own deletion. Returns the owner, whether it lives (exists and is not being
// deleted), the finalizers the owner carries, and a failed read.
func (x *Explainer) heldForOwner(ctx context.Context, o subject, name string) (ObjectRef, bool, []string, *report.Gap) {
	ref := controllerRef(o.obj)
	if ref == nil {
		return ObjectRef{}, false, nil, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return ObjectRef{}, false, nil, nil
	}
	res, ok := x.resource(gv.Group, ref.Kind)
	if !ok || !namesKind(name, ref.Kind, res.Resource) {
		return ObjectRef{}, false, nil, nil
	}
	owner := refFor(res, o.obj.GetNamespace(), ref.Name)
	client := x.c.Metadata.Resource(res.GVR())
	var m *metav1.PartialObjectMetadata
	if res.Namespaced {
		m, err = client.Namespace(owner.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		m, err = client.Get(ctx, ref.Name, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
		return owner, false, nil, nil
	case err != nil:
		g := getGap(owner.ID(), "reading owner "+owner.String()+", for which "+name+" is held", err)
		return owner, false, nil, &g
	}
	return owner, m.UID == ref.UID && m.DeletionTimestamp == nil, m.Finalizers, nil
}

// teardownFinalizers are the finalizers of an owner that hold it for its controller's own
// teardown: all but Kubernetes' own (coreFinalizer: foregroundDeletion, orphan, `*.kubernetes.io`).
func teardownFinalizers(finalizers []string) []string {
	var out []string
	for _, f := range finalizers {
		if !coreFinalizer(f) {
			out = append(out, f)
		}
	}
	return out
}

// deleteOwnerStep is the way out that deletes the live owner a finalizer is held for, offered
// only on evidence that the owner's controller tears the owner down in its own order: the owner
// carries a finalizer of its own (teardownFinalizers), which holds it until its controller is
// done, and that teardown removes the finalizer held on the object. The deletion is in the
// background, said so in the command: the garbage collector then deletes the owner's dependents
// only once the owner is gone, after its controller's teardown; a foreground deletion would
// have the collector delete them first, ahead of that order. Without such a finalizer the owner
// would go at once, nothing shows its controller runs a teardown that removes the finalizer,
// and the collector would delete the object with it still on: no step, and why (the second
// result, for the strip's summary).
func (x *Explainer) deleteOwnerStep(o subject, f *Finalizer, owner ObjectRef, ownerFinalizers []string) (*Remediation, string) {
	own := teardownFinalizers(ownerFinalizers)
	if len(own) == 0 {
		return nil, fmt.Sprintf(" Deleting %s is not offered: it carries no finalizer of its controller, so nothing shows that its controller tears it down in order and removes %s then; deleted, it would go at once, and the garbage collector would delete %s with %s still on it.", owner.String(), f.Name, o.ref().String(), f.Name)
	}
	list := strings.Join(own, ", ")
	return &Remediation{Code: ReasonRemoveReferrer,
		Summary: fmt.Sprintf("Or, if %s is to go, delete it in the background: its finalizer %s holds it while its controller tears it down in its own order, which removes %s from %s; the garbage collector deletes what it owns only once it is gone. Not in the foreground (--cascade=foreground): the collector would delete its dependents first, ahead of its controller's order.", owner.String(), list, f.Name, o.ref().String()),
		Command: x.kubectl(owner.Namespace, "delete", owner.QualifiedResource(), owner.Name, "--cascade=background", "--wait=false"),
		Cost:    "deletes " + owner.String() + ", torn down by its controller (held by " + list + "), and then what it owns"}, ""
}

// coreFinalizer reports a finalizer of Kubernetes itself (`batch.kubernetes.io/job-tracking` on
// a Job's pods) or one with an explainer of its own: what removes it is known, and its name
// naming the owner's kind says nothing about a product's teardown.
func coreFinalizer(name string) bool {
	if _, ok := registered(name); ok {
		return true
	}
	domain, _, _ := strings.Cut(name, "/")
	return kubernetesOwnDomain(domain)
}

// applyOwnerHeld explains a finalizer its remover runs for but holds for the object's owner:
// the finalizer's name names the kind of the object's controller owner, and that owner lives.
// Its controller removes the finalizer while it tears the owner down, not when the dependent
// alone is deleted (a StatefulSet deleted directly to restart it), so the finalizer stays as
// long as the owner does. The way out, first: remove the finalizer by hand when the object is
// to be made again (the owner's controller, reconciling the live owner, makes it again), or
// delete the owner when it is to go (its controller then removes the finalizer itself); the
// controller's logs after them. Deleting the owner is offered only where its controller tears
// it down in order (deleteOwnerStep), in the background. Applies to finalizers that nothing else explains (no blocker,
// pause marker, orphan verdict or failed read), never to Kubernetes' own (coreFinalizer).
func (x *Explainer) applyOwnerHeld(ctx context.Context, o subject, e *Explanation) {
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || len(f.Incomplete) > 0 || f.bypass == nil || coreFinalizer(f.Name) {
			continue
		}
		owner, lives, ownerFins, gap := x.heldForOwner(ctx, o, f.Name)
		if gap != nil {
			f.Unchecked = append(f.Unchecked, *gap)
			continue
		}
		if !lives {
			continue
		}
		f.WaitsFor = fmt.Sprintf("the deletion of its owner %s, which lives: the finalizer's name names the owner's kind (%s), and the owner's controller removes it while it tears the owner down, not on this object's own deletion", owner.String(), owner.Kind)
		del, notOffered := x.deleteOwnerStep(o, f, owner, ownerFins)
		strip := *f.bypass
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("If %s is to be made again (deleted to restart it), remove finalizer %s by hand: its owner %s lives, and the owner's controller, which reconciles it, makes the object again. The patch removes only this entry, and the API server refuses it if the list changed since it was read.%s", o.ref().String(), f.Name, owner.String(), notOffered)
		strip.Cost = "the teardown the finalizer guards for the owner does not run for this object; its owner's controller makes it again while " + owner.String() + " lives"
		if s := f.Stalled; s != nil {
			s.LikelyReasons = append([]string{"its controller removes the finalizer while it tears down the owner " + owner.String() + ", which lives: not when this object alone is deleted"}, s.LikelyReasons...)
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
		steps := []Remediation{strip}
		if del != nil {
			steps = append(steps, *del)
		}
		f.Remedies = append(steps, rest...)
	}
}
