package finalizers

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeforensics/suite/internal/report"
)

// podOnlyAccount returns the running pods of a service account that no Deployment, StatefulSet
// or DaemonSet runs as: pods made one per object by a product (a game server's pod, owned by its
// GameServer) or by a Job, whose containers use the account for that one object. They run, so
// the account's workload is not gone; and they are no controller that finalizes other objects.
func podOnlyAccount(pods []corev1.Pod, sa string) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		name := p.Spec.ServiceAccountName
		if name == "" {
			name = "default"
		}
		if name == sa && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			out = append(out, p)
		}
	}
	return out
}

// podOwners words who made the pods: their controlling owners' kinds, or "nothing".
func podOwners(pods []corev1.Pod) string {
	seen := map[string]bool{}
	var kinds []string
	for _, p := range pods {
		k := "no owner"
		for _, r := range p.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				k = r.Kind
			}
		}
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	return strings.Join(kinds, ", ")
}

// withoutPodOnlyAccounts moves the service accounts that no workload runs as, but whose pods run
// (podOnlyAccount), from the candidates to the unrelated ones: they are neither a gone remover
// to reinstall nor a controller. ok is false when no candidate is left. A pod list that fails
// keeps the account a candidate, with the read as a gap.
func (x *Explainer) withoutPodOnlyAccounts(ctx context.Context, a attribution, what string) (attribution, bool, []report.Gap) {
	var kept []Controller
	var gaps []report.Gap
	moved := false
	for _, c := range a.controllers {
		if c.Found || c.Object.Resource != "serviceaccounts" {
			kept = append(kept, c)
			continue
		}
		pods, err := x.pods(ctx, c.Object.Namespace)
		if err != nil {
			gaps = append(gaps, listGap(objectID("", "v1", "pods", c.Object.Namespace, ""), "listing the pods that run as "+c.Object.String(), err))
			kept = append(kept, c)
			continue
		}
		running := podOnlyAccount(pods, c.Object.Name)
		if len(running) == 0 {
			kept = append(kept, c)
			continue
		}
		c.Note = fmt.Sprintf("may update %s, but only %d running pod(s) made one per object (owned by %s, e.g. pods/%s -n %s) run as it, no Deployment, StatefulSet or DaemonSet: not a controller that finalizes other objects, and not gone", what, len(running), podOwners(running), running[0].Name, running[0].Namespace)
		a.unrelated = append(a.unrelated, c)
		moved = true
	}
	if !moved {
		return a, true, gaps
	}
	a.controllers = kept
	if len(kept) == 0 {
		return a, false, gaps
	}
	a.summary, a.dead = candidateSummary(kept, what, false)
	for i := range a.controllers {
		if a.controllers[i].Found {
			a.controllers[i].Note = a.summary
		}
	}
	return a, true, gaps
}

// withoutPeopleServers lists apart, among RBAC's candidates, the ones that serve people while a
// candidate that does not runs (apartServingPeople): for a finalizer without a domain too, a
// UI that may edit the objects is not their remover.
func withoutPeopleServers(a attribution, ws []workload, what string) attribution {
	byRef := map[string]workload{}
	for _, w := range ws {
		byRef[w.ref.String()] = w
	}
	kept, apart := apartServingPeople(a.controllers, byRef, what)
	if len(apart) == 0 {
		return a
	}
	a.controllers = kept
	a.unrelated = append(a.unrelated, apart...)
	a.summary, a.dead = candidateSummary(kept, what, false)
	for i := range a.controllers {
		if a.controllers[i].Found {
			a.controllers[i].Note = a.summary
		}
	}
	return a
}
