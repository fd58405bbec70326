package terminating

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/fluxcd/cli-utils/pkg/object"
	"maps"
	"slices"
	"time"

	helmv2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/apis/meta"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/finalizers"
	"github.com/kubeforensics/suite/internal/flux"
	"github.com/kubeforensics/suite/internal/report"
)

// One chain to the Flux cause: a remover that is gone or not ready is often a workload Flux
// applies, and what keeps it broken is upstream of it (the Kustomization that would roll out
// its fix waits on a dependency, a HelmRelease fails, a source produces no artifact). For each
// such remover the Flux object that manages it is found by the labels kustomize-controller and
// helm-controller set, else by the Kustomization inventories, and when that object is not
// Ready, the root causes flux-chain computes for it are attached to the remover.

// maxLinkedRemovers bounds the removers whose labels are read (one GET each).
const maxLinkedRemovers = 32

// Flux's ownership labels (kustomize-controller and helm-controller set them on what they apply).
const (
	kustomizeNameLabel      = "kustomize.toolkit.fluxcd.io/name"
	kustomizeNamespaceLabel = "kustomize.toolkit.fluxcd.io/namespace"
	helmNameLabel           = "helm.toolkit.fluxcd.io/name"
	helmNamespaceLabel      = "helm.toolkit.fluxcd.io/namespace"
)

// linkFlux fills Controller.GitOps of every remover candidate that is gone or not ready. What
// it could not read is said: the link's state is Unknown, or, when not even the remover's
// labels or the inventories could be read, the Result's unchecked list names it.
func linkFlux(ctx context.Context, c *cluster.Clients, res *Result, now time.Time) {
	removers := unhealthyRemovers(res.Objects)
	if len(removers) == 0 {
		return
	}
	refs := slices.Sorted(maps.Keys(removers))
	if len(refs) > maxLinkedRemovers {
		res.Unchecked = append(res.Unchecked, report.Gap{Op: report.OpGet, Reason: report.GapTooLarge,
			What: fmt.Sprintf("the Flux objects that manage %d more removers that are gone or not ready (only %d are followed)", len(refs)-maxLinkedRemovers, maxLinkedRemovers)})
		refs = refs[:maxLinkedRemovers]
	}
	labels := map[string]map[string]string{}
	for _, key := range refs {
		ref := removers[key][0].Object
		l, err := removerLabels(ctx, c, ref)
		if err != nil {
			res.Unchecked = append(res.Unchecked, cluster.Gap(report.OpGet, ref.ID(), fmt.Sprintf("which Flux object manages %s: reading it", ref), err))
			continue
		}
		labels[key] = l
	}
	fl := readFlux(ctx, c, now)
	for _, key := range refs {
		l, ok := labels[key]
		if !ok {
			continue
		}
		ref := removers[key][0].Object
		link, gap := fl.linkFor(ref, l)
		if gap != nil {
			res.Unchecked = append(res.Unchecked, *gap)
		}
		for _, ctrl := range removers[key] {
			ctrl.GitOps = link
		}
	}
}

// unhealthyRemovers collects the remover candidates that name an object and are gone or not
// ready, in every explanation and nested one, keyed by the object.
func unhealthyRemovers(objs []*finalizers.Explanation) map[string][]*finalizers.Controller {
	out := map[string][]*finalizers.Controller{}
	seen := map[*finalizers.Explanation]bool{}
	var walk func(e *finalizers.Explanation)
	walk = func(e *finalizers.Explanation) {
		if e == nil || seen[e] {
			return
		}
		seen[e] = true
		for i := range e.Finalizers {
			f := &e.Finalizers[i]
			for j := range f.Controllers {
				ctrl := &f.Controllers[j]
				if !ctrl.Healthy && ctrl.Object.Name != "" {
					out[ctrl.Object.String()] = append(out[ctrl.Object.String()], ctrl)
				}
			}
			for _, b := range f.Blockers {
				walk(b.Terminating)
			}
		}
	}
	for _, e := range objs {
		walk(e)
	}
	return out
}

// removerLabels reads the remover's labels (metadata only); a remover that no longer exists
// has none, and may still be in an inventory.
func removerLabels(ctx context.Context, c *cluster.Clients, ref finalizers.ObjectRef) (map[string]string, error) {
	ri := c.Metadata.Resource(schema.GroupVersionResource{Group: ref.Group, Version: ref.Version, Resource: ref.Resource})
	var m *metav1.PartialObjectMetadata
	var err error
	if ref.Namespace != "" {
		m, err = ri.Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		m, err = ri.Get(ctx, ref.Name, metav1.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	return m.Labels, nil
}

// fluxState is the cluster's Flux objects and the chain flux-chain builds from them, or why
// they could not be read.
type fluxState struct {
	objs  *flux.Objects
	chain *flux.Chain
	// absent is set when Flux is not installed; err when its objects could not be listed.
	absent bool
	err    error
}

// readFlux reads every Kustomization, source and HelmRelease once and builds the chain.
func readFlux(ctx context.Context, c *cluster.Clients, now time.Time) *fluxState {
	objs, err := flux.Read(ctx, c.Dynamic, "")
	if errors.Is(err, flux.ErrNotInstalled) {
		return &fluxState{absent: true}
	}
	if err != nil {
		return &fluxState{err: err}
	}
	objs.Now = now
	return &fluxState{objs: objs, chain: flux.Build(objs)}
}

// linkFor finds the Flux object that manages the remover ref (labels first, then inventories)
// and links it; gap names what could not be decided when nothing is linked.
func (s *fluxState) linkFor(ref finalizers.ObjectRef, labels map[string]string) (*finalizers.GitOpsLink, *report.Gap) {
	if name := labels[helmNameLabel]; name != "" {
		via := "labels " + helmNameLabel + "=" + name + ", " + helmNamespaceLabel + "=" + labels[helmNamespaceLabel] + " on " + ref.String()
		return s.helmRelease(labels[helmNamespaceLabel], name, via), nil
	}
	if name := labels[kustomizeNameLabel]; name != "" {
		via := "labels " + kustomizeNameLabel + "=" + name + ", " + kustomizeNamespaceLabel + "=" + labels[kustomizeNamespaceLabel] + " on " + ref.String()
		return s.kustomization(labels[kustomizeNamespaceLabel], name, via), nil
	}
	switch {
	case s.absent:
		return nil, nil
	case s.err != nil:
		g := cluster.Gap(report.OpList, gvrID(flux.KustomizationGVR), fmt.Sprintf("whether a Flux Kustomization's inventory lists %s: listing Kustomizations", ref), s.err)
		return nil, &g
	}
	for _, k := range s.objs.Kustomizations {
		if k.Status.Inventory == nil {
			continue
		}
		for _, entry := range k.Status.Inventory.Entries {
			m, err := object.ParseObjMetadata(entry.ID)
			if err == nil && m.Name == ref.Name && m.Namespace == ref.Namespace && m.GroupKind.Group == ref.Group && m.GroupKind.Kind == ref.Kind {
				return s.kustomization(k.Namespace, k.Name, "listed in the inventory of Kustomization "+k.Namespace+"/"+k.Name), nil
			}
		}
	}
	return nil, nil
}

// unreadable returns the link's state when the Flux objects could not be read, or nil.
func (s *fluxState) unreadable(l *finalizers.GitOpsLink) *finalizers.GitOpsLink {
	switch {
	case s.absent:
		l.State, l.Reason = "NotFound", "Flux is not installed (the Kustomization API is not served): nothing reconciles this object any more"
	case s.err != nil:
		l.State, l.Reason = "Unknown", "the Flux objects could not be read: "+cluster.Reason(s.err)
	default:
		return nil
	}
	return l
}

// kustomization links the Kustomization namespace/name.
func (s *fluxState) kustomization(namespace, name, via string) *finalizers.GitOpsLink {
	l := &finalizers.GitOpsLink{Kind: "Kustomization", Namespace: namespace, Name: name, Via: via}
	if u := s.unreadable(l); u != nil {
		return u
	}
	id := namespace + "/" + name
	n := s.chain.Node(id)
	if n == nil {
		l.State, l.Reason = "NotFound", "no such Kustomization: the object that applied it is gone"
		return l
	}
	l.State, l.Ready = string(n.State), readyOf(n.Ready)
	if n.State == flux.Ready {
		return l
	}
	l.Causes = s.causes(func(rc flux.RootCause) bool {
		return rc.Kustomization == id || rc.AppliedBy == id || slices.Contains(rc.Tiers, id) || slices.Contains(rc.BlastRadius, id)
	})
	return l
}

// helmRelease links the HelmRelease namespace/name, and the Kustomization that applies it when
// that one is not Ready.
func (s *fluxState) helmRelease(namespace, name, via string) *finalizers.GitOpsLink {
	l := &finalizers.GitOpsLink{Kind: "HelmRelease", Namespace: namespace, Name: name, Via: via}
	if u := s.unreadable(l); u != nil {
		return u
	}
	i := slices.IndexFunc(s.objs.HelmReleases, func(hr helmv2.HelmRelease) bool { return hr.Namespace == namespace && hr.Name == name })
	if i < 0 {
		l.State, l.Reason = "NotFound", "no such HelmRelease: the object that installed it is gone"
		if s.objs.Incomplete {
			l.State, l.Reason, l.Unchecked = "Unknown", "not among the HelmReleases read, and some reads failed", s.objs.Gaps
		}
		return l
	}
	hr := &s.objs.HelmReleases[i]
	ready := apimeta.FindStatusCondition(hr.Status.Conditions, meta.ReadyCondition)
	l.State = string(helmReleaseState(hr, ready))
	if ready != nil {
		l.Ready = &finalizers.Condition{Type: ready.Type, Status: string(ready.Status), Reason: ready.Reason, Message: ready.Message}
	}
	id := namespace + "/" + name
	ref := finalizers.ObjectRef{Group: flux.HelmReleaseGVR.Group, Resource: flux.HelmReleaseGVR.Resource, Namespace: namespace, Name: name}.String()
	if l.State != string(flux.Ready) {
		l.Causes = s.causes(func(rc flux.RootCause) bool {
			return rc.Object == ref || slices.Contains(rc.HeldBack, id) || slices.ContainsFunc(rc.HelmReleases, func(h flux.HelmRelease) bool { return h.Namespace == namespace && h.Name == name })
		})
	}
	if kn := hr.Labels[kustomizeNameLabel]; kn != "" {
		up := s.kustomization(hr.Labels[kustomizeNamespaceLabel], kn, "labels "+kustomizeNameLabel+"="+kn+", "+kustomizeNamespaceLabel+"="+hr.Labels[kustomizeNamespaceLabel]+" on the HelmRelease")
		if up.State != string(flux.Ready) {
			l.AppliedBy = up
		}
	}
	return l
}

// helmReleaseState classifies a HelmRelease as flux-chain classifies a Kustomization.
func helmReleaseState(hr *helmv2.HelmRelease, ready *metav1.Condition) flux.State {
	stalled := apimeta.FindStatusCondition(hr.Status.Conditions, meta.StalledCondition)
	switch {
	case hr.DeletionTimestamp != nil:
		return flux.Terminating
	case hr.Spec.Suspend:
		return flux.Suspended
	case stalled != nil && stalled.Status == metav1.ConditionTrue:
		return flux.Failing
	case ready == nil:
		return flux.NoStatus
	case ready.Status == metav1.ConditionTrue:
		return flux.Ready
	case ready.Status == metav1.ConditionFalse && ready.Reason == meta.DependencyNotReadyReason:
		return flux.Waiting
	case ready.Status == metav1.ConditionFalse:
		return flux.Failing
	}
	return flux.Progressing
}

// causes converts the chain's root causes (and reconciliations in progress) that match, the
// failing ones first, each once.
func (s *fluxState) causes(match func(flux.RootCause) bool) []finalizers.GitOpsCause {
	var out []finalizers.GitOpsCause
	for _, rc := range append(slices.Clone(s.chain.RootCauses), s.chain.Progressing...) {
		if !match(rc) {
			continue
		}
		out = append(out, finalizers.GitOpsCause{
			Object: cmp.Or(rc.Object, flux.KustomizationRef(rc.Kustomization)),
			Code:   rc.Code, Reason: rc.Reason, Message: rc.Message, Explanation: rc.Explanation,
		})
	}
	return out
}

// readyOf converts flux-chain's Ready condition.
func readyOf(c *flux.Condition) *finalizers.Condition {
	if c == nil {
		return nil
	}
	return &finalizers.Condition{Type: meta.ReadyCondition, Status: c.Status, Reason: c.Reason, Message: c.Message}
}
