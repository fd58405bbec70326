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
// deleted), and a failed read.
func (x *Explainer) heldForOwner(ctx context.Context, o subject, name string) (ObjectRef, bool, *report.Gap) {
	ref := controllerRef(o.obj)
	if ref == nil {
		return ObjectRef{}, false, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return ObjectRef{}, false, nil
	}
	res, ok := x.resource(gv.Group, ref.Kind)
	if !ok || !namesKind(name, ref.Kind, res.Resource) {
		return ObjectRef{}, false, nil
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
		return owner, false, nil
	case err != nil:
		g := getGap(owner.ID(), "reading owner "+owner.String()+", for which "+name+" is held", err)
		return owner, false, &g
	}
	return owner, m.UID == ref.UID && m.DeletionTimestamp == nil, nil
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
// controller's logs after them. Applies to finalizers that nothing else explains (no blocker,
// pause marker, orphan verdict or failed read), never to Kubernetes' own (coreFinalizer).
func (x *Explainer) applyOwnerHeld(ctx context.Context, o subject, e *Explanation) {
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) || len(f.Incomplete) > 0 || f.bypass == nil || coreFinalizer(f.Name) {
			continue
		}
		owner, lives, gap := x.heldForOwner(ctx, o, f.Name)
		if gap != nil {
			f.Unchecked = append(f.Unchecked, *gap)
			continue
		}
		if !lives {
			continue
		}
		f.WaitsFor = fmt.Sprintf("the deletion of its owner %s, which lives: the finalizer's name names the owner's kind (%s), and the owner's controller removes it while it tears the owner down, not on this object's own deletion", owner.String(), owner.Kind)
		strip := *f.bypass
		strip.LastResort = false
		strip.Summary = fmt.Sprintf("If %s is to be made again (deleted to restart it), remove finalizer %s by hand: its owner %s lives, and the owner's controller, which reconciles it, makes the object again. The patch removes only this entry, and the API server refuses it if the list changed since it was read.", o.ref().String(), f.Name, owner.String())
		strip.Cost = "the teardown the finalizer guards for the owner does not run for this object; its owner's controller makes it again while " + owner.String() + " lives"
		del := Remediation{Code: ReasonRemoveReferrer,
			Summary: fmt.Sprintf("Or, if %s is to go, delete it: its controller tears it down and removes %s from %s itself.", owner.String(), f.Name, o.ref().String()),
			Command: x.kubectl(owner.Namespace, "delete", owner.QualifiedResource(), owner.Name, "--wait=false"),
			Cost:    "deletes " + owner.String() + " and what its controller removes with it"}
		if s := f.Stalled; s != nil {
			s.LikelyReasons = append([]string{"its controller removes the finalizer while it tears down the owner " + owner.String() + ", which lives: not when this object alone is deleted"}, s.LikelyReasons...)
		}
		rest := slices.DeleteFunc(slices.Clone(f.Remedies), func(r Remediation) bool { return r.Code == ReasonStripFinalizer })
		f.Remedies = append([]Remediation{strip, del}, rest...)
	}
}
