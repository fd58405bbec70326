package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A stalled remover whose object's status records a failure, and whose own Jobs have all
// completed after that failure: the Jobs are named and the strip comes first. A Job still
// running, one completed before the failure, or no status failure, changes nothing.
func TestCompletedWork(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	failedAt := now.Add(-3 * time.Hour)
	yes := true
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.org/v1", "kind": "Workspace",
		"metadata": map[string]any{"name": "w", "namespace": "team", "uid": "u-1"},
		"status":   map[string]any{"phase": "Errored", "message": "cleanup job failed"}}}
	job := func(name string, completedAgo time.Duration, complete bool) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.org/v1", Kind: "Workspace", Name: "w", UID: types.UID("u-1"), Controller: &yes}}}}
		if complete {
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-completedAgo))}}
		}
		return j
	}
	res := kinds.Resource{Group: "example.org", Version: "v1", Resource: "workspaces", Kind: "Workspace", Namespaced: true}
	run := func(o *unstructured.Unstructured, objs ...runtime.Object) Finalizer {
		x := fakeExplainer(objs)
		x.now = now
		strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", LastResort: true}
		f := Finalizer{Name: "example.org/storage", Stalled: &Stall{},
			Controllers: []Controller{{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "sys", Name: "ctl"}, Found: true, Healthy: true}},
			Remedies:    []Remediation{{Code: ReasonFixStatusFailure, Summary: "ctl runs, and the object's own status records why it does not finish: x"}, {Code: ReasonReadControllerLogs, Summary: "logs"}, strip},
			bypass:      &strip}
		e := &Explanation{Finalizers: []Finalizer{f}}
		x.applyCompletedWork(ctx, subject{res: res, obj: o}, e, ownWord{obj: o, conditions: []Condition{{Type: "Error", Status: "True", LastTransition: &failedAt}}})
		return e.Finalizers[0]
	}

	t.Run("completed since", func(t *testing.T) {
		f := run(obj, job("cleanup-w", time.Hour, true))
		if len(f.Remedies) != 2 || f.Remedies[0].Code != ReasonStripFinalizer || f.Remedies[0].LastResort || !strings.Contains(f.Remedies[0].Summary, "jobs.batch/cleanup-w -n team") {
			t.Fatalf("steps %+v", f.Remedies)
		}
		if len(f.Stalled.Evidence) != 1 || !strings.Contains(f.Stalled.Evidence[0], "jobs.batch/cleanup-w -n team completed 1h ago") {
			t.Errorf("evidence %q", f.Stalled.Evidence)
		}
	})
	healthy := obj.DeepCopy()
	unstructured.RemoveNestedField(healthy.Object, "status")
	for name, c := range map[string]struct {
		o    *unstructured.Unstructured
		objs []runtime.Object
	}{
		"still running":              {o: obj, objs: []runtime.Object{job("cleanup-w", 0, false)}},
		"one of two still running":   {o: obj, objs: []runtime.Object{job("a", time.Hour, true), job("b", 0, false)}},
		"completed before the error": {o: obj, objs: []runtime.Object{job("cleanup-w", 5*time.Hour, true)}},
		"no failure in the status":   {o: healthy, objs: []runtime.Object{job("cleanup-w", time.Hour, true)}},
		"no Job of its own":          {o: obj},
	} {
		t.Run(name, func(t *testing.T) {
			if f := run(c.o, c.objs...); len(f.Remedies) != 3 || f.Remedies[2].Code != ReasonStripFinalizer {
				t.Fatalf("changed: %+v", f.Remedies)
			}
		})
	}
}
