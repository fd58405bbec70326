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
	// evidence says how posting was decided; gap names a read that failed.
	evidence, gap string
}

// node reads a node and its kubelet's lease, once per command.
func (x *Explainer) node(ctx context.Context, name string) nodeLiveness {
	l, _ := cached(x, "node/"+name, func() (nodeLiveness, error) {
		n, err := x.c.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nodeLiveness{state: "no longer exists, so no kubelet will confirm"}, nil
		}
		if err != nil {
			return nodeLiveness{state: "could not be read (" + x.readFailure("reading nodes/"+name, err) + ")", gap: x.readFailure("reading nodes/"+name, err)}, nil
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
		if !ready {
			return l, nil
		}
		lease, err := x.c.Kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			l.gap = x.readFailure("reading the kubelet's lease leases.coordination.k8s.io/"+name+" -n "+corev1.NamespaceNodeLease, err)
			return l, nil
		}
		if renewed, ok := leaseRenewed(lease); ok {
			ago := x.now.Sub(renewed)
			l.posting = ago <= kubeletPostingWindow
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
func (x *Explainer) podShuttingDown(ctx context.Context, p *corev1.Pod) (bool, []string) {
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
	return true, []string{
		fmt.Sprintf("%s of its %ds grace period left", Age(left), grace),
		fmt.Sprintf("node %s is Ready and %s", p.Spec.NodeName, n.evidence),
	}
}

// controllerProgress decides whether a custom-finalizer deletion is on course: every finalizer
// has a running controller that RBAC (or the operator's own resources) confirms, nothing
// blocks it and no read failed, and the object shows recent work on it (a status write, a
// condition change, a Normal event) with no Warning event in that time.
func (x *Explainer) controllerProgress(e *Explanation, w ownWord) (bool, []string) {
	if len(e.Finalizers) == 0 {
		return false, nil
	}
	for _, f := range e.Finalizers {
		if len(f.Blockers) > 0 || len(f.Incomplete) > 0 || !allHealthy(f.Controllers) {
			return false, nil
		}
	}
	since := x.now.Add(-recentWindow)
	var ev []string
	for _, e := range w.events {
		if e.Last.Before(since) {
			continue
		}
		if e.Type == corev1.EventTypeWarning {
			return false, nil
		}
		ev = append(ev, fmt.Sprintf("event %s from %s %s ago", e.Reason, orUnknown(e.Source), Age(x.now.Sub(e.Last))))
	}
	var managers []string
	for m := range w.writes {
		managers = append(managers, m)
	}
	sort.Strings(managers)
	for _, m := range managers {
		if t := w.writes[m]; !t.Before(since) {
			ev = append(ev, fmt.Sprintf("%s wrote to the object %s ago, after the deletion was requested", m, Age(x.now.Sub(t))))
		}
	}
	for _, c := range w.conditions {
		if c.LastTransition != nil && !c.LastTransition.Before(since) && c.LastTransition.Truncate(time.Second).After(*e.DeletionTimestamp) {
			ev = append(ev, fmt.Sprintf("condition %s became %s %s ago", c.Type, c.Status, Age(x.now.Sub(*c.LastTransition))))
		}
	}
	if len(ev) == 0 {
		return false, nil
	}
	for _, f := range e.Finalizers {
		for _, c := range f.Controllers {
			if c.Healthy {
				ev = append([]string{fmt.Sprintf("%s, which removes %s, is running (%s ready)", c.Object.String(), f.Name, c.Ready)}, ev...)
				break
			}
		}
	}
	return true, ev
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
