package finalizers

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// workWords, in a kind, say its objects record work done outside the cluster on another
// object's deletion: a deprovision, a cleanup, a teardown.
var workWords = []string{"deprovision", "cleanup", "teardown", "uninstall", "destroy", "deletion", "decommission", "purge", "wipe", "finaliz", "removal"}

// maxCompanions bounds the companions named for one object.
const maxCompanions = 3

// companion is an object of the stuck object's API group that its controller made for it to
// do the finalizer's work, whose own status shows that work failing or never finishing.
type companion struct {
	res kinds.Resource
	obj *unstructured.Unstructured
	// tie says how it belongs to the stuck object; state how its status shows the work.
	tie, state string
}

func (c companion) ref() ObjectRef { return refFor(c.res, c.obj.GetNamespace(), c.obj.GetName()) }

// namesWork reports whether a kind is a record of the finalizer's work: it names a word of
// work outside the cluster (workWords), or the finalizer's own name part
// (`…/deprovision` and a ClusterDeprovision).
func namesWork(kind, finalizer string) bool {
	k := strings.ToLower(kind)
	for _, w := range workWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	_, name, _ := strings.Cut(finalizer, "/")
	for _, w := range words(name) {
		if len(w) >= 4 && strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// companionTie says how obj belongs to the stuck object target: a controller ownerReference to
// its UID, or, in its namespace, a label whose value is its name and whose key names its kind
// (`…/cluster-deployment-name: prod-1` for a ClusterDeployment). "" when it does not.
func companionTie(obj *unstructured.Unstructured, target subject) string {
	if controlledBy(obj.GetOwnerReferences(), string(target.obj.GetUID())) {
		return "its controller ownerReference names " + target.ref().String()
	}
	if obj.GetNamespace() != target.obj.GetNamespace() {
		return ""
	}
	kind := strings.ToLower(target.res.Kind)
	for k, v := range obj.GetLabels() {
		flat := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(k[strings.LastIndex(k, "/")+1:]))
		if v == target.obj.GetName() && strings.Contains(flat, kind) {
			return fmt.Sprintf("its label %s names %s", k, target.ref().String())
		}
	}
	return ""
}

// companionState says how a companion's own status shows its work: failed (a condition or
// state that names a failure, or a Job it controls that failed), or unfinished (its status says
// so: a `completed`-like boolean false or a Complete-like condition False, while no Job it
// controls runs, and it was made longer than the stall grace period ago). "" when the work
// completed, runs, has had no time yet, or the status says nothing either way (a status that
// records no completion is no evidence that the work did not finish).
func companionState(obj *unstructured.Unstructured, jobs []batchv1.Job, now time.Time) string {
	conds, _ := statusOf(obj)
	for _, c := range conds {
		if c.Status == string(corev1.ConditionTrue) && completionWord(c.Type) {
			return ""
		}
	}
	for _, c := range conds {
		if conditionFails(c) {
			return fmt.Sprintf("its condition %s is %s (%s: %s)", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	if field, value, _, _ := statusFailure(obj); field != "" {
		return fmt.Sprintf("its %s is %s", field, value)
	}
	running := false
	for i := range jobs {
		j := &jobs[i]
		if !controlledBy(j.OwnerReferences, string(obj.GetUID())) {
			continue
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				return fmt.Sprintf("the Job it controls, jobs.batch/%s -n %s, failed (%s: %s)", j.Name, j.Namespace, c.Reason, c.Message)
			}
		}
		if _, done := jobCompleted(j); done {
			return ""
		}
		running = running || j.Status.Active > 0
	}
	for _, f := range []string{"phase", "state"} {
		if v, _, _ := unstructured.NestedString(obj.Object, "status", f); completionWord(v) {
			return ""
		}
	}
	said := ""
	for _, k := range []string{"completed", "complete", "done", "finished", "succeeded"} {
		if done, ok, _ := unstructured.NestedBool(obj.Object, "status", k); ok {
			if done {
				return ""
			}
			said = "its status." + k + " is false"
			break
		}
	}
	for _, c := range conds {
		if said == "" && c.Status == string(corev1.ConditionFalse) && completionWord(c.Type) {
			said = fmt.Sprintf("its condition %s is False", c.Type)
		}
	}
	if said == "" || running || now.Sub(obj.GetCreationTimestamp().Time) < stallAfter {
		return ""
	}
	return fmt.Sprintf("it has not completed in %s: %s, and no Job it controls runs", Age(now.Sub(obj.GetCreationTimestamp().Time)), said)
}

// completionWord reports a condition type, phase or state that says the work is done.
func completionWord(s string) bool {
	switch strings.ToLower(s) {
	case "complete", "completed", "succeeded", "success", "done", "finished":
		return true
	}
	return false
}

// companions finds, among the objects of the stuck object's API group (the LISTs the referrer
// search makes, cached), those its controller made for it to do finalizer's work (a kind that
// names that work, tied to the object by a controller ownerReference or a label naming it) whose
// status shows the work failing or never finishing. A type that cannot be listed is a gap.
func (x *Explainer) companions(ctx context.Context, o subject, finalizer string) ([]companion, []report.Gap) {
	if o.res.Group == "" {
		return nil, nil
	}
	var out []companion
	var gaps []report.Gap
	for _, r := range x.catalog.Preferred() {
		if r.Group != o.res.Group || r.Resource == o.res.Resource || !r.Can("list") || !namesWork(r.Kind, finalizer) {
			continue
		}
		items, _, err := x.listFull(ctx, r, "")
		if err != nil {
			gaps = append(gaps, listGap(typeID(r, ""), "listing "+r.QualifiedName()+" for the work made for "+o.ref().String(), err))
			continue
		}
		for i := range items {
			u := &items[i]
			tie := companionTie(u, o)
			if tie == "" {
				continue
			}
			jobs, err := x.jobsIn(ctx, u.GetNamespace())
			if err != nil {
				gaps = append(gaps, listGap(typeID(jobsResource, u.GetNamespace()), "listing jobs.batch in namespace "+u.GetNamespace()+" for the work of "+refFor(r, u.GetNamespace(), u.GetName()).String(), err))
				continue
			}
			if state := companionState(u, jobs, x.now); state != "" && len(out) < maxCompanions {
				out = append(out, companion{res: r, obj: u, tie: tie, state: state})
			}
		}
	}
	return out, gaps
}

// jobsIn lists the Jobs of one namespace, once per command ("" for none).
func (x *Explainer) jobsIn(ctx context.Context, ns string) ([]batchv1.Job, error) {
	if ns == "" {
		return nil, nil
	}
	return cached(x, "jobs/"+ns, func() ([]batchv1.Job, error) {
		l, err := x.c.Kube.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	})
}

// jobsResource is the built-in type of the Jobs a companion controls.
var jobsResource = kinds.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
