package finalizers

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// maxFailedCleanup bounds the failed pods named for one stalled object.
const maxFailedCleanup = 3

// failedCleanup finds what the object's own failed work shows about a stalled remover: the pods
// the object controls (a runner, a cleanup or destroy job's pod its controller started for it)
// that failed, a container that exited non-zero or is crash-looping. A controller that runs its
// cleanup in a pod of its own waits for that pod to succeed; when it failed, that pod's logs say
// why the finalizer stays, and they come before the controller's. Read from the object's owner
// references, never from a product's naming; a failed list is a gap.
func (x *Explainer) failedCleanup(ctx context.Context, o subject) (evidence, reasons []string, fixes []Remediation, gaps []report.Gap) {
	ns := o.obj.GetNamespace()
	if ns == "" {
		return nil, nil, nil, nil
	}
	pods, err := x.pods(ctx, ns)
	if err != nil {
		return nil, nil, nil, []report.Gap{listGap(typeID(podsResource, ns), "listing pods in namespace "+ns+" for the work "+o.ref().String()+" controls", err)}
	}
	var failed []corev1.Pod
	for _, p := range pods {
		if controlledBy(p.OwnerReferences, string(o.obj.GetUID())) && podFailure(&p) != "" {
			failed = append(failed, p)
		}
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].Name < failed[j].Name })
	if len(failed) > maxFailedCleanup {
		failed = failed[:maxFailedCleanup]
	}
	for _, p := range failed {
		ref := fmt.Sprintf("pods/%s -n %s", p.Name, ns)
		why := podFailure(&p)
		evidence = append(evidence, fmt.Sprintf("%s, which %s controls, %s", ref, o.ref().String(), why))
		reasons = append(reasons, fmt.Sprintf("the work its controller runs for the object in %s failed (%s): until it succeeds, or its controller gives up, the finalizer stays", ref, why))
		fixes = append(fixes, Remediation{Code: ReasonReadControllerLogs,
			Summary: fmt.Sprintf("Read the logs of %s, the object's own work that failed (%s): they say what its cleanup could not do; fix that, and its controller runs it again and removes the finalizer.", ref, why),
			Command: x.kubectl(ns, "logs", "pod/"+p.Name, "--all-containers", "--tail=200")})
	}
	return evidence, reasons, fixes, nil
}

// controlledBy reports owner references that make uid the controller.
func controlledBy(refs []metav1.OwnerReference, uid string) bool {
	for _, r := range refs {
		if string(r.UID) == uid && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}

// podFailure words how a pod failed: its phase Failed, a container that exited non-zero, or one
// that crash-loops; "" when it did not.
func podFailure(p *corev1.Pod) string {
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return fmt.Sprintf("its container %s exited %d (%s)", cs.Name, t.ExitCode, t.Reason)
		}
		if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
			return fmt.Sprintf("its container %s is crash-looping", cs.Name)
		}
	}
	if p.Status.Phase == corev1.PodFailed {
		return "Failed"
	}
	return ""
}

// withFailedCleanup puts what a stalled verdict found first: its evidence and likely reasons,
// and its steps (reading the failed work's logs) before the controller's. withDependencies
// does the same for what the remover works through.
func withFailedCleanup(f *Finalizer, s *Stall, evidence, reasons []string, fixes []Remediation) {
	if len(fixes) == 0 {
		return
	}
	s.Evidence = append(s.Evidence, evidence...)
	s.LikelyReasons = append(append([]string(nil), reasons...), s.LikelyReasons...)
	f.Remedies = append(fixes, f.Remedies...)
}
