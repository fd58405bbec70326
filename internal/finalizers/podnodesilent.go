package finalizers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/report"
)

// applyPodNodeSilent explains a pod's finalizer whose remover runs while the pod's node no
// longer reports: the node is gone, not Ready, or Ready with a kubelet that stopped renewing its
// lease. Only the kubelet moves a deleted pod to a terminal phase (Succeeded or Failed); a
// controller that removes its finalizer once the pod has finished — after it released what the
// pod held outside the pod — waits for ever while the pod stays Running or Pending (a Ready node
// whose lease merely looks old does not count). The node is
// the finalizer's blocker; the steps, in order: bring the node back (its kubelet then finishes
// the pod and the controller removes the finalizer itself), the strip if the node is gone for
// good (its cost names what the controller would have released, as far as the pod's own
// annotations under the finalizer's domain record it), the remover's logs last.
func (x *Explainer) applyPodNodeSilent(ctx context.Context, o subject, e *Explanation, w ownWord) {
	if o.res.Group != "" || o.res.Resource != "pods" || !slices.ContainsFunc(e.Finalizers, removerRuns) {
		return
	}
	var node, phase string
	var annotations map[string]string
	if w.obj != nil {
		node, _, _ = unstructured.NestedString(w.obj.Object, "spec", "nodeName")
		phase, _, _ = unstructured.NestedString(w.obj.Object, "status", "phase")
		annotations = w.obj.GetAnnotations()
	} else {
		pod, err := x.c.Kube.CoreV1().Pods(o.obj.GetNamespace()).Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) {
				e.Unchecked = append(e.Unchecked, getGap(o.ref().ID(), "reading "+o.ref().String()+" for its node and phase", err))
			}
			return
		}
		node, phase, annotations = pod.Spec.NodeName, string(pod.Status.Phase), pod.Annotations
	}
	if node == "" || phase == "Succeeded" || phase == "Failed" {
		return
	}
	var n *nodeLiveness
	for i := range e.Finalizers {
		f := &e.Finalizers[i]
		if !removerRuns(*f) {
			continue
		}
		if n == nil {
			l := x.node(ctx, node)
			n = &l
		}
		if !nodeSilent(*n) {
			return
		}
		podNodeSilentBlocker(f, refFor(nodeResource, "", node), n.state, phase, annotations)
	}
}

// nodeSilent reports a node whose kubelet will not move a pod on: gone, or not Ready (the node
// controller marks a node whose kubelet stopped posting not Ready). A Ready node whose lease
// looks old is not enough: the lease is read against the command's clock, and a failed read is
// no evidence.
func nodeSilent(n nodeLiveness) bool {
	return n.gap == (report.Gap{}) && (strings.HasPrefix(n.state, "no longer exists") || strings.HasPrefix(n.state, "is not Ready"))
}

// podNodeSilentBlocker makes the silent node the finalizer's blocker, with its steps.
func podNodeSilentBlocker(f *Finalizer, node ObjectRef, state, phase string, annotations map[string]string) {
	remover := f.Controllers[0].Object.String()
	if phase == "" {
		phase = "unknown"
	}
	f.Blockers = append(f.Blockers, Blocker{Object: node, Code: ReasonNodeNotReporting,
		Reason:  fmt.Sprintf("the pod's node %s %s: only its kubelet moves the deleted pod to a terminal phase (it is %s), and %s removes %s once the pod has finished", node.String(), state, phase, remover, f.Name),
		Details: []string{"pod phase " + phase}})
	rest, logs := splitRemedies(f.Remedies)
	fix := Remediation{Summary: fmt.Sprintf("Bring %s back: its kubelet then reports the pod's containers stopped, the pod finishes, and %s removes %s itself.", node.String(), remover, f.Name)}
	f.Remedies = append([]Remediation{fix}, rest...)
	if f.bypass != nil {
		strip := *f.bypass
		strip.Summary = fmt.Sprintf("If %s is gone for good, nothing will ever finish the pod: remove finalizer %s by hand. The patch removes only this entry, never the object's other finalizers, and the API server refuses it if the list changed since it was read.", node.String(), f.Name)
		if rec := recordedUnder(f.Domain, annotations); len(rec) > 0 {
			strip.Cost = fmt.Sprintf("left behind: what %s releases once the pod has finished, as the pod records it (%s); the containers may still run on the node if it comes back", remover, strings.Join(rec, ", "))
		} else {
			strip.Cost += "; the containers may still run on the node if it comes back"
		}
		f.Remedies = append(f.Remedies, strip)
	}
	f.Remedies = append(f.Remedies, logs...)
}

// recordedUnder returns the annotations (key=value, sorted) whose key's domain shares the
// finalizer's domain's last two labels (`slinky.slurm.net/job-id` for
// `scheduler.slinky.slurm.net`): what the finalizer's product recorded on the object.
func recordedUnder(domain string, annotations map[string]string) []string {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return nil
	}
	base := strings.Join(labels[len(labels)-2:], ".")
	var out []string
	for k, v := range annotations {
		d, _, ok := strings.Cut(k, "/")
		if !ok || (d != base && !strings.HasSuffix(d, "."+base)) || len(v) > 64 {
			continue
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
