package finalizers

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// logsCommand is a `kubectl logs` of a workload, or of one of its pods, with the flags after the
// target and an optional fixed-string grep for a name.
type logsCommand struct {
	workload ObjectRef
	// pod, when set, is the one pod of the workload read instead (its leader).
	pod   string
	flags []string
	grep  string
}

// logsCommand renders c pinned to this cluster's connection, every word shell-quoted.
func (x *Explainer) logsCommand(c logsCommand) string {
	target := c.workload.QualifiedResource() + "/" + c.workload.Name
	if c.pod != "" {
		target = "pods/" + c.pod
	}
	cmd := x.kubectl(c.workload.Namespace, append([]string{"logs", target}, c.flags...)...)
	if c.grep != "" {
		cmd += " | grep -F -- " + shellQuote(c.grep)
	}
	return cmd
}

// leader is the one pod of a workload with several that acts, by the lease it holds.
type leader struct {
	pod   string
	pods  int
	lease ObjectRef
	ago   time.Duration
}

// workloadLeader returns the pod of the workload w that holds a lease in the workload's namespace
// and renews it within the lease's duration, when the workload runs more than one pod (leader
// election: only the holder acts, the others stand by). Nothing is returned when a read fails, the
// workload runs one pod, or no lease of its pods is live: `kubectl logs` of the workload then
// reads the one that acts, or nothing tells which. A DaemonSet's pods each act on their own node
// (a lease one of them holds may be its node's, not a leader's): never narrowed to one.
func (x *Explainer) workloadLeader(ctx context.Context, w ObjectRef) (leader, bool) {
	if w.Resource == "daemonsets" {
		return leader{}, false
	}
	ws, err := x.workloads(ctx)
	if err != nil {
		return leader{}, false
	}
	var podLabels map[string]string
	for i := range ws {
		if ws[i].ref.String() == w.String() {
			podLabels = ws[i].podLabels
		}
	}
	if len(podLabels) == 0 {
		return leader{}, false
	}
	pods, err := x.pods(ctx, w.Namespace)
	if err != nil {
		return leader{}, false
	}
	sel := labels.SelectorFromSet(podLabels)
	var mine []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
			mine = append(mine, p.Name)
		}
	}
	if len(mine) < 2 {
		return leader{}, false
	}
	leases, err := x.namespaceLeases(ctx, w.Namespace)
	if err != nil {
		return leader{}, false
	}
	for i := range leases {
		l := &leases[i]
		if l.Spec.HolderIdentity == nil {
			continue
		}
		pod := heldBy(*l.Spec.HolderIdentity, mine)
		renewed, ok := leaseRenewed(l)
		if pod == "" || !ok {
			continue
		}
		duration := 15 * time.Second
		if l.Spec.LeaseDurationSeconds != nil {
			duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
		}
		if ago := x.now.Sub(renewed); ago <= duration+leaseGrace {
			return leader{pod: pod, pods: len(mine), ago: ago,
				lease: ObjectRef{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespace: w.Namespace, Name: l.Name}}, true
		}
	}
	return leader{}, false
}

// applyLeaderLogs points every step that reads a remover's logs at its leader: `kubectl logs` of
// a Deployment reads one of its pods, which with leader election may be one that stands by and
// logs only that it waits for the lease. The step reads the pod that holds the lease instead,
// and says so.
func (x *Explainer) applyLeaderLogs(ctx context.Context, e *Explanation) {
	fix := func(steps []Remediation) {
		for i := range steps {
			c := steps[i].logs
			if c == nil {
				continue
			}
			w := c.workload
			l, ok := x.workloadLeader(ctx, w)
			if !ok {
				continue
			}
			pod := ObjectRef{Version: "v1", Resource: "pods", Kind: "Pod", Namespace: w.Namespace, Name: l.pod}
			leader := *c
			leader.pod = l.pod
			steps[i].Command, steps[i].logs = x.logsCommand(leader), &leader
			steps[i].Summary += fmt.Sprintf(" Of its %d pods, only %s acts: it holds %s, renewed %s ago; the others stand by and log only that they wait for it — read the leader's logs.",
				l.pods, pod.String(), l.lease.String(), Age(l.ago))
		}
	}
	fix(e.Remedies)
	for i := range e.Finalizers {
		fix(e.Finalizers[i].Remedies)
	}
}
