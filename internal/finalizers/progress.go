package finalizers

import (
	"context"
	"fmt"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// recentWindow is how recent a controller's work on an object (a status write, a condition
// change, an event) must be to count as the deletion progressing.
const recentWindow = 5 * time.Minute

// kubeletPostingWindow is how recently a node's kubelet must have renewed its lease to count
// as posting: kube-controller-manager's default node-monitor-grace-period.
const kubeletPostingWindow = 40 * time.Second

// nodeLiveness is what the node of a pod says about its kubelet.
type nodeLiveness struct {
	// state describes the node for prose ("is Ready", "no longer exists, ...").
	state string
	// posting is set when the node is Ready and its kubelet renewed its lease recently.
	posting bool
	// ready is the node's Ready condition; leaseStale is set when its kubelet's lease was read
	// and last renewed before kubeletPostingWindow (a node whose agent keeps no lease is not stale).
	ready, leaseStale bool
	// evidence says how posting was decided; gap names a read that failed.
	evidence string
	gap      report.Gap
}

// node reads a node and its kubelet's lease, once per command.
func (x *Explainer) node(ctx context.Context, name string) nodeLiveness {
	l, _ := cached(x, "node/"+name, func() (nodeLiveness, error) {
		n, err := x.c.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nodeLiveness{state: "no longer exists, so no kubelet will confirm"}, nil
		}
		if err != nil {
			gap := getGap(objectID("", "v1", "nodes", "", name), "reading nodes/"+name, err)
			return nodeLiveness{state: "could not be read (" + gap.String() + ")", gap: gap}, nil
		}
		l := nodeLiveness{state: "reports no Ready condition"}
		ready := false
		for _, c := range n.Status.Conditions {
			if c.Type != corev1.NodeReady {
				continue
			}
			ready = c.Status == corev1.ConditionTrue
			if ready {
				l.state = "is Ready"
			} else {
				l.state = fmt.Sprintf("is not Ready (%s since %s), so its kubelet may never confirm", c.Reason, c.LastTransitionTime.UTC().Format("2006-01-02 15:04Z"))
			}
		}
		l.ready = ready
		if !ready {
			return l, nil
		}
		lease, err := x.c.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			l.gap = getGap(objectID("coordination.k8s.io", "v1", "leases", corev1.NamespaceNodeLease, name), "reading the kubelet's lease leases.coordination.k8s.io/"+name+" -n "+corev1.NamespaceNodeLease, err)
			return l, nil
		}
		if renewed, ok := leaseRenewed(lease); ok {
			ago := x.now.Sub(renewed)
			l.posting = ago <= kubeletPostingWindow
			l.leaseStale = !l.posting
			l.evidence = fmt.Sprintf("its kubelet renewed its lease %s ago", Age(ago))
			if !l.posting {
				l.state += fmt.Sprintf(", but its kubelet last renewed its lease %s ago", Age(ago))
			}
		}
		return l, nil
	})
	return l
}

func leaseRenewed(l *coordinationv1.Lease) (time.Time, bool) {
	if l.Spec.RenewTime == nil {
		return time.Time{}, false
	}
	return l.Spec.RenewTime.Time, true
}

// podShuttingDown reports a pod whose graceful deletion is on course: grace period left, on a
// Ready node whose kubelet posts. The evidence is returned for the explanation.
func (x *Explainer) podShuttingDown(ctx context.Context, p *corev1.Pod) (bool, []ProgressEvidence) {
	if p.DeletionTimestamp == nil || p.Spec.NodeName == "" || len(p.Finalizers) > 0 {
		return false, nil
	}
	left := p.DeletionTimestamp.Time.Sub(x.now)
	if left <= 0 {
		return false, nil
	}
	n := x.node(ctx, p.Spec.NodeName)
	if !n.posting {
		return false, nil
	}
	grace := int64(0)
	if p.DeletionGracePeriodSeconds != nil {
		grace = *p.DeletionGracePeriodSeconds
	}
	node := ObjectRef{Version: "v1", Resource: "nodes", Kind: "Node", Name: p.Spec.NodeName}
	return true, []ProgressEvidence{
		{Kind: ProgressGracePeriod, At: timePtr(p.DeletionTimestamp.Time), Detail: fmt.Sprintf("%s of its %ds grace period left", Age(left), grace)},
		{Kind: ProgressKubeletPosting, Object: &node, Detail: fmt.Sprintf("node %s is Ready and %s", p.Spec.NodeName, n.evidence)},
	}
}

// controllerProgress applies the one model of progress to a deletion held by controllers:
// every finalizer has a running remover (all its candidates run, confirmed by RBAC or the
// operator's own resources), nothing blocks it and no read failed; the object shows work on it
// after the deletion request within the recent window (a Normal event, a write by a field
// manager, a condition that changed, the deletion's generation observed); and nothing speaks
// against it (a Warning event in that time, a controller that has not observed the deletion
// long after it, a remover whose lease is no longer renewed). The evidence, for and against,
// is returned either way.
func (x *Explainer) controllerProgress(ctx context.Context, e *Explanation, w ownWord) (bool, []ProgressEvidence) {
	if len(e.Finalizers) == 0 {
		return false, nil
	}
	for _, f := range e.Finalizers {
		if len(f.Blockers) > 0 || len(f.Incomplete) > 0 || !allHealthy(f.Controllers) {
			return false, nil
		}
	}
	since := x.now.Add(-recentWindow)
	ev := x.eventEvidence(w.events, since)
	var managers []string
	for m := range w.writes {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	for _, m := range managers {
		if t := w.writes[m]; !t.Before(since) {
			ev = append(ev, ProgressEvidence{Kind: ProgressStatusWrite, At: timePtr(t), Detail: fmt.Sprintf("%s wrote to the object %s ago, after the deletion was requested", m, Age(x.now.Sub(t)))})
		}
	}
	for _, c := range w.conditions {
		if c.LastTransition != nil && !c.LastTransition.Before(since) && c.LastTransition.Truncate(time.Second).After(*e.DeletionTimestamp) {
			ev = append(ev, ProgressEvidence{Kind: ProgressConditionTransition, At: timePtr(*c.LastTransition), Detail: fmt.Sprintf("condition %s became %s %s ago", c.Type, c.Status, Age(x.now.Sub(*c.LastTransition)))})
		}
	}
	if g, ok := generationEvidence(w.obj, len(w.writes) > 0, *e.DeletionTimestamp, x.now); ok {
		ev = append(ev, g)
	}
	var live []ProgressEvidence
	seen := map[string]bool{}
	for _, f := range e.Finalizers {
		for _, c := range f.Controllers {
			if !c.Healthy || seen[c.Object.String()] {
				continue
			}
			seen[c.Object.String()] = true
			obj := c.Object
			live = append(live, ProgressEvidence{Kind: ProgressRemoverRunning, Object: &obj, Detail: fmt.Sprintf("%s, which removes %s, is running (%s ready)", c.Object.String(), f.Name, c.Ready)})
			leases, gaps := x.removerLeases(ctx, c)
			e.Unchecked = append(e.Unchecked, gaps...)
			live = append(live, leases...)
		}
	}
	ev = append(live, ev...)
	work := false
	for _, p := range ev {
		if p.Against {
			return false, ev
		}
		work = work || p.isWork()
	}
	return work, ev
}

// allHealthy reports candidates that all run: with one that cannot, which of them removes the
// finalizer is not known, so the running one's work is no proof of progress.
func allHealthy(cs []Controller) bool {
	for _, c := range cs {
		if !c.Found || !c.Healthy {
			return false
		}
	}
	return len(cs) > 0
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnamed component"
	}
	return s
}
