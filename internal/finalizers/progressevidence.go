package finalizers

import (
	"context"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeforensics/suite/internal/report"
)

// ProgressKind names one kind of evidence about whether a deletion progresses on its own.
type ProgressKind string

// The kinds of progress evidence, one model for every finalizer (docs/why-terminating.md).
const (
	// Work on the object after the deletion was requested, within the recent window.
	ProgressEvent               ProgressKind = "event"
	ProgressStatusWrite         ProgressKind = "status-write"
	ProgressConditionTransition ProgressKind = "condition-transition"
	ProgressObservedGeneration  ProgressKind = "observed-generation"
	// The remover is alive: it runs, and the lease its pod holds is renewed.
	ProgressRemoverRunning ProgressKind = "remover-running"
	ProgressLeaseRenewed   ProgressKind = "lease-renewed"
	// A pod's graceful deletion: grace period left, a kubelet that posts.
	ProgressGracePeriod    ProgressKind = "grace-period"
	ProgressKubeletPosting ProgressKind = "kubelet-posting"
	// What holds the object is itself going away.
	ProgressBlockersDeleting ProgressKind = "blockers-deleting"
	// Evidence against: a Warning event in the window, a controller that has not observed the
	// deletion's generation, a remover whose lease is no longer renewed.
	ProgressWarningEvent         ProgressKind = "warning-event"
	ProgressGenerationUnobserved ProgressKind = "generation-unobserved"
	ProgressLeaseExpired         ProgressKind = "lease-expired"
)

// ProgressEvidence is one fact for or against a deletion progressing on its own.
type ProgressEvidence struct {
	Kind ProgressKind `json:"kind"`
	// Against marks evidence that the deletion does not progress.
	Against bool `json:"against,omitempty"`
	// Object is what the fact is about when it is not the object itself: the remover, its
	// lease, a node, a blocker.
	Object *ObjectRef `json:"object,omitempty"`
	// At is when it happened (the event, the write, the renewal), when known.
	At     *time.Time `json:"at,omitempty"`
	Detail string     `json:"detail"`
}

// isWork reports evidence of work done on the object itself after the deletion request.
func (p ProgressEvidence) isWork() bool {
	switch p.Kind {
	case ProgressEvent, ProgressStatusWrite, ProgressConditionTransition, ProgressObservedGeneration:
		return !p.Against
	}
	return false
}

// recordProgress sets the explanation's evidence, typed and as lines (Progress keeps the lines
// of the evidence for, as before).
func (e *Explanation) recordProgress(evs []ProgressEvidence) {
	e.ProgressEvidence = append(e.ProgressEvidence, evs...)
	for _, ev := range evs {
		if !ev.Against {
			e.Progress = append(e.Progress, ev.Detail)
		}
	}
}

func timePtr(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

// generationEvidence compares the object's generation with the one its controller last
// observed (status.observedGeneration). The deletion request itself moves the generation of an
// object with finalizers, so a controller that reconciled the deletion has observed it: with a
// status write after the request, that is work on the deletion; a controller that has not
// observed it long after the request has not acted on it. No observedGeneration, no evidence.
func generationEvidence(obj *unstructured.Unstructured, written bool, requested, now time.Time) (ProgressEvidence, bool) {
	if obj == nil {
		return ProgressEvidence{}, false
	}
	obs, found, err := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	gen := obj.GetGeneration()
	if !found || err != nil || gen == 0 {
		return ProgressEvidence{}, false
	}
	switch {
	case obs >= gen && written:
		return ProgressEvidence{Kind: ProgressObservedGeneration, Detail: fmt.Sprintf("its controller observed generation %d, the one the deletion request set (status.observedGeneration)", gen)}, true
	case obs < gen && now.Sub(requested) > recentWindow:
		return ProgressEvidence{Kind: ProgressGenerationUnobserved, Against: true, Detail: fmt.Sprintf("its controller has not observed the deletion: status.observedGeneration is %d, the object is at generation %d, %s after the deletion was requested", obs, gen, Age(now.Sub(requested)))}, true
	}
	return ProgressEvidence{}, false
}

// leaseGrace is added to a lease's duration before its holder counts as no longer renewing it.
const leaseGrace = 30 * time.Second

// removerLeases returns the leases in the workload's namespace held by one of its pods (the
// holder identity starts with the pod's name, as client-go's and controller-runtime's leader
// election write it), as evidence for (renewed within its duration) or against (not renewed).
func (x *Explainer) removerLeases(ctx context.Context, c Controller) ([]ProgressEvidence, []report.Gap) {
	ws, err := x.workloads(ctx)
	if err != nil {
		return nil, []report.Gap{listGap(workloadsID(), "listing workloads to find the leases of "+c.Object.String(), err)}
	}
	var w *workload
	for i := range ws {
		if ws[i].ref.String() == c.Object.String() {
			w = &ws[i]
		}
	}
	if w == nil || len(w.podLabels) == 0 {
		return nil, nil
	}
	ns := c.Object.Namespace
	pods, err := x.pods(ctx, ns)
	if err != nil {
		return nil, []report.Gap{listGap(typeID(podsResource, ns), "listing pods in namespace "+ns+" to find the leases of "+c.Object.String(), err)}
	}
	sel := labels.SelectorFromSet(w.podLabels)
	var mine []string
	for _, p := range pods {
		if sel.Matches(labels.Set(p.Labels)) {
			mine = append(mine, p.Name)
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	leases, err := x.namespaceLeases(ctx, ns)
	if err != nil {
		return nil, []report.Gap{listGap(objectID("coordination.k8s.io", "v1", "leases", ns, ""), "listing leases in namespace "+ns+" to see whether "+c.Object.String()+" renews its own", err)}
	}
	var out []ProgressEvidence
	for _, l := range leases {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		pod := heldBy(holder, mine)
		renewed, ok := leaseRenewed(&l)
		if pod == "" || !ok {
			continue
		}
		ref := &ObjectRef{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespace: ns, Name: l.Name}
		duration := 15 * time.Second
		if l.Spec.LeaseDurationSeconds != nil {
			duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
		}
		ago := x.now.Sub(renewed)
		if ago <= duration+leaseGrace {
			out = append(out, ProgressEvidence{Kind: ProgressLeaseRenewed, Object: ref, At: timePtr(renewed), Detail: fmt.Sprintf("%s, held by its pod %s, was renewed %s ago", ref.String(), pod, Age(ago))})
			continue
		}
		out = append(out, ProgressEvidence{Kind: ProgressLeaseExpired, Against: true, Object: ref, At: timePtr(renewed),
			Detail: fmt.Sprintf("%s, held by its pod %s, was last renewed %s ago (lease duration %s): the remover runs but has stopped acting", ref.String(), pod, Age(ago), duration)})
	}
	return out, nil
}

// heldBy returns the pod among pods whose name the holder identity starts with.
func heldBy(holder string, pods []string) string {
	for _, p := range pods {
		if holder == p || strings.HasPrefix(holder, p+"_") || strings.HasPrefix(holder, p+"-") {
			return p
		}
	}
	return ""
}

// eventEvidence turns the object's recent events into evidence: Normal ones for, Warning ones
// against.
func (x *Explainer) eventEvidence(events []Event, since time.Time) []ProgressEvidence {
	var out []ProgressEvidence
	for _, e := range events {
		if e.Last.Before(since) {
			continue
		}
		if e.Type == corev1.EventTypeWarning {
			out = append(out, ProgressEvidence{Kind: ProgressWarningEvent, Against: true, At: timePtr(e.Last), Detail: fmt.Sprintf("Warning event %s from %s %s ago: its controller reports a failure", e.Reason, orUnknown(e.Source), Age(x.now.Sub(e.Last)))})
			continue
		}
		out = append(out, ProgressEvidence{Kind: ProgressEvent, At: timePtr(e.Last), Detail: fmt.Sprintf("event %s from %s %s ago", e.Reason, orUnknown(e.Source), Age(x.now.Sub(e.Last)))})
	}
	return out
}

// namespaceLeases lists the Leases of namespace ns once per explainer: a remover's own lease
// (removerLeases) and the leader among its pods (workloadLeader) read the same list.
func (x *Explainer) namespaceLeases(ctx context.Context, ns string) ([]coordinationv1.Lease, error) {
	return cached(x, "leases/"+ns, func() ([]coordinationv1.Lease, error) {
		l, err := x.c.Kube.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}
