package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubeforensics/suite/internal/report"
)

// Progress evidence as a table, without a control plane: the explanation so far (its finalizers
// and their removers), what the object says (events, writes, conditions, generations) and the
// remover's pod and leases in; whether the deletion progresses (DELETING) and the kinds of
// evidence, for and against, out.
func TestProgressEvidenceTable(t *testing.T) {
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	remover := Controller{Object: ObjectRef{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespace: "ops", Name: "op"}, Found: true, Healthy: true, Ready: "1/1"}
	fin := func(mod func(*Finalizer)) []Finalizer {
		f := Finalizer{Name: "widgets.acme.io/cleanup", Controllers: []Controller{remover}}
		if mod != nil {
			mod(&f)
		}
		return []Finalizer{f}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "op-7d9f-x2", Namespace: "ops", Labels: map[string]string{"app.kubernetes.io/name": "op"}}}
	lease := func(renewed time.Time) *coordinationv1.Lease {
		holder, secs := "op-7d9f-x2_4b1c", int32(15)
		at := metav1.NewMicroTime(renewed)
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "op-leader", Namespace: "ops"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &at}}
	}
	generation := func(gen, observed int64) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"observedGeneration": observed}}}
		u.SetGeneration(gen)
		return u
	}
	normal := []Event{{Type: corev1.EventTypeNormal, Reason: "Deleting", Source: "op", Last: ago(time.Minute)}}
	for _, tc := range []struct {
		name      string
		finalizer []Finalizer
		deleted   time.Time
		word      ownWord
		cluster   []runtime.Object
		deleting  bool
		kinds     string
	}{
		{"a Normal event since the request", fin(nil), ago(10 * time.Minute), ownWord{events: normal}, nil,
			true, "remover-running event"},
		{"a Warning event speaks against", fin(nil), ago(10 * time.Minute), ownWord{events: []Event{{Type: corev1.EventTypeWarning, Reason: "CleanupFailed", Last: ago(time.Minute)}}}, nil,
			false, "remover-running !warning-event"},
		{"a field manager's write since the request", fin(nil), ago(10 * time.Minute), ownWord{writes: map[string]time.Time{"op-manager (status)": ago(2 * time.Minute)}}, nil,
			true, "remover-running status-write"},
		{"a condition that changed since the request", fin(nil), ago(10 * time.Minute), ownWord{conditions: []Condition{{Type: "Ready", Status: "False", LastTransition: ptrTo(ago(time.Minute))}}}, nil,
			true, "remover-running condition-transition"},
		{"a condition that changed before the request is no work", fin(nil), ago(time.Minute), ownWord{conditions: []Condition{{Type: "Ready", Status: "False", LastTransition: ptrTo(ago(2 * time.Minute))}}}, nil,
			false, "remover-running"},
		{"work before the recent window is not counted", fin(nil), ago(time.Hour), ownWord{events: []Event{{Type: corev1.EventTypeNormal, Reason: "Deleting", Last: ago(10 * time.Minute)}}}, nil,
			false, "remover-running"},
		{"the deletion's generation observed after a write", fin(nil), ago(10 * time.Minute), ownWord{obj: generation(3, 3), writes: map[string]time.Time{"op": ago(time.Minute)}}, nil,
			true, "remover-running status-write observed-generation"},
		{"the deletion's generation unobserved long after the request", fin(nil), ago(10 * time.Minute), ownWord{obj: generation(3, 2), events: normal}, nil,
			false, "remover-running event !generation-unobserved"},
		{"a renewed lease alone is no work on the object", fin(nil), ago(10 * time.Minute), ownWord{}, []runtime.Object{pod, lease(ago(5 * time.Second))},
			false, "remover-running lease-renewed"},
		{"a lease no longer renewed speaks against an event", fin(nil), ago(10 * time.Minute), ownWord{events: normal}, []runtime.Object{pod, lease(ago(10 * time.Minute))},
			false, "remover-running !lease-expired event"},
		{"a remover that does not run: no judgement", fin(func(f *Finalizer) { f.Controllers[0].Healthy = false }), ago(10 * time.Minute), ownWord{events: normal}, nil,
			false, ""},
		{"a blocker: no judgement", fin(func(f *Finalizer) { f.Blockers = []Blocker{{Object: ObjectRef{Resource: "pods", Name: "p"}}} }), ago(10 * time.Minute), ownWord{events: normal}, nil,
			false, ""},
		{"a failed read: no judgement", fin(func(f *Finalizer) {
			f.Incomplete = []report.Gap{{Op: report.OpGet, Reason: report.GapForbidden, What: "reading x", Error: "forbidden"}}
		}), ago(10 * time.Minute), ownWord{events: normal}, nil,
			false, ""},
		{"no finalizer: no judgement", nil, ago(10 * time.Minute), ownWord{events: normal}, nil,
			false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := append(controllerObjects("ops", "op", []rbacv1.PolicyRule{{APIGroups: []string{"acme.io"}, Resources: []string{"widgets"}, Verbs: []string{"*"}}}), tc.cluster...)
			x := fakeExplainer(kube)
			x.now = now
			e := &Explanation{Finalizers: tc.finalizer, DeletionTimestamp: ptrTo(tc.deleted)}
			ok, ev := x.controllerProgress(context.Background(), e, tc.word)
			var kinds []string
			for _, p := range ev {
				k := string(p.Kind)
				if p.Against {
					k = "!" + k
				}
				kinds = append(kinds, k)
			}
			if ok != tc.deleting || strings.Join(kinds, " ") != tc.kinds {
				t.Errorf("progress = %v [%s], want %v [%s]", ok, strings.Join(kinds, " "), tc.deleting, tc.kinds)
			}
			if len(e.Unchecked) > 0 {
				t.Errorf("unchecked: %v", e.Unchecked)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
