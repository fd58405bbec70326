package execute

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/drain"

	"github.com/kubeforensics/suite/internal/retire"
)

// evict asks the Eviction API to remove pod under the preconditions pre (its UID and
// resourceVersion, see Bound), and reports whether the pod was already gone. The API server
// checks the pod's PodDisruptionBudget and refuses an eviction it does not allow; that refusal
// stops the step (budgetRefusal), and a Conflict on pre is a *ChangedError. The server's
// eviction version is found the way kubectl drain finds it; the request itself is built here
// rather than by drain.Helper.EvictPod, which sends no precondition, and drain.Helper's loop,
// which retries a refused eviction until its timeout instead of stopping. A server without
// policy/v1 eviction is refused, never answered by a plain delete that would skip the budgets.
func (e Executor) evict(ctx context.Context, pod *corev1.Pod, pre *metav1.Preconditions, bound Bound) (bool, error) {
	ns, name := pod.Namespace, pod.Name
	gv, err := drain.CheckEvictionSupport(e.Clients.Kube)
	if err != nil {
		return false, fmt.Errorf("discovering the Eviction API: %w", err)
	}
	if gv != policyv1.SchemeGroupVersion {
		return false, fmt.Errorf("the API server does not serve policy/v1 pods/eviction (found %q), so pod %s/%s cannot be evicted honouring its PodDisruptionBudget; safe-retire does not fall back to deleting it: check its budgets and delete it yourself", gv.String(), ns, name)
	}
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: name, Namespace: ns},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: pre},
	}
	err = e.Clients.Kube.PolicyV1().Evictions(ns).Evict(ctx, ev)
	switch {
	case err == nil:
		return false, nil
	case apierrors.IsNotFound(err):
		return true, nil
	case apierrors.IsConflict(err):
		return false, e.podConflict(ctx, pod, bound, err)
	case isBudgetRefusal(err):
		return false, e.budgetRefusal(ctx, pod, err)
	}
	return false, fmt.Errorf("evicting pod %s/%s: %w", ns, name, err)
}

// podConflict names what changed in pod since it was checked, after the API server refused
// its eviction with a Conflict.
func (e Executor) podConflict(ctx context.Context, pod *corev1.Pod, bound Bound, err error) error {
	ref := retire.Ref{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name}
	checked, cerr := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if cerr != nil {
		return fmt.Errorf("evicting pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return conflict(ctx, ref, bound, checked, fmt.Errorf("evicting pod %s/%s: %w", pod.Namespace, pod.Name, err), func(ctx context.Context) (map[string]any, error) {
		now, err := e.Clients.Kube.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return runtime.DefaultUnstructuredConverter.ToUnstructured(now)
	})
}

// isBudgetRefusal tells a PodDisruptionBudget's refusal (429 or 403 with a DisruptionBudget
// cause, or the 500 the server answers for a pod under several budgets) from other failures.
func isBudgetRefusal(err error) bool {
	if apierrors.HasStatusCause(err, policyv1.DisruptionBudgetCause) {
		return true
	}
	return apierrors.IsInternalError(err) && strings.Contains(err.Error(), "PodDisruptionBudget")
}

// budgetRefusal is the stop for an eviction a PodDisruptionBudget refused: which budgets guard
// the pod and what they allow now, and what the operator can do.
func (e Executor) budgetRefusal(ctx context.Context, pod *corev1.Pod, err error) error {
	ns := pod.Namespace
	names, budgets, listErr := e.budgetsOf(ctx, pod)
	what, check := "a PodDisruptionBudget", e.Planner.Kubectl(ns, "get", "poddisruptionbudgets")
	switch {
	case listErr != nil:
		what += fmt.Sprintf(" (listing them failed: %v)", listErr)
	case len(budgets) > 0:
		what = strings.Join(budgets, ", ")
	}
	if len(names) == 1 {
		check = e.Planner.Kubectl(ns, "get", "poddisruptionbudget", names[0])
	}
	return fmt.Errorf("pod %s/%s: %s refuses its eviction: safe-retire does not force past a disruption budget; "+
		"run again once the budget allows a disruption (its other pods healthy, or another disruption over), "+
		"or change the budget in git if losing this pod is acceptable (%s): %w", ns, pod.Name, what, check, err)
}

// budgetsOf names the PodDisruptionBudgets whose selector matches pod, each with what it allows
// now.
func (e Executor) budgetsOf(ctx context.Context, pod *corev1.Pod) (names, described []string, err error) {
	list, err := e.Clients.Kube.PolicyV1().PodDisruptionBudgets(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, pdb := range list.Items {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		names = append(names, pdb.Name)
		described = append(described, fmt.Sprintf("PodDisruptionBudget poddisruptionbudgets.policy/%s -n %s (%s)", pdb.Name, pdb.Namespace, allows(&pdb)))
	}
	return names, described, nil
}

// allows says what budget pdb allows now, from its status.
func allows(pdb *policyv1.PodDisruptionBudget) string {
	limit := "no limit"
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		limit = "maxUnavailable " + pdb.Spec.MaxUnavailable.String()
	case pdb.Spec.MinAvailable != nil:
		limit = "minAvailable " + pdb.Spec.MinAvailable.String()
	}
	s := pdb.Status
	return fmt.Sprintf("%s: %d disruptions allowed now, %d of %d pods healthy, %d needed", limit, s.DisruptionsAllowed, s.CurrentHealthy, s.ExpectedPods, s.DesiredHealthy)
}
