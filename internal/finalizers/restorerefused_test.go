package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// A Function whose Environment went with the tenant namespace being deleted
// (fission#3660): "create it again" would be refused by the API server, so the step becomes a
// note and the strip says it is the way out. In a live namespace the step stays; an unreadable
// namespace leaves it and is recorded.
func TestRestoreRefusedInNamespaceBeingDeleted(t *testing.T) {
	env := ObjectRef{Group: "fission.io", Version: "v1", Resource: "environments", Kind: "Environment", Namespace: "team-a", Name: "nodejs"}
	finalizer := func() Finalizer {
		return Finalizer{Name: "fission.io/function-cleanup",
			Blockers: []Blocker{{Object: env, Code: ReasonMissingObject, Reason: "spec.environment names " + env.String() + ", which does not exist"}},
			Remedies: []Remediation{
				{Code: ReasonRestoreMissingObject, Summary: "Create " + env.String() + " again, or repoint spec.environment."},
				{Code: ReasonStripFinalizer, Summary: "If " + env.String() + " is gone for good, remove it by hand.", LastResort: true},
				{Code: ReasonReadControllerLogs, Summary: "read its logs"},
			}}
	}
	now := metav1.Now()
	for _, tc := range []struct {
		name    string
		objs    []runtime.Object
		restore bool
	}{
		{"namespace being deleted", []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}}, false},
		{"live namespace", []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}, true},
		{"namespace unreadable", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.objs)
			f := finalizer()
			x.restoreRefused(context.Background(), &f)
			if got := f.Remedies[0].Code == ReasonRestoreMissingObject; got != tc.restore {
				t.Fatalf("steps = %+v, want restore %v", f.Remedies, tc.restore)
			}
			if tc.restore {
				if strings.Contains(f.Remedies[1].Summary, "went with a namespace") {
					t.Errorf("strip rewritten though the object can come back: %+v", f.Remedies[1])
				}
				if tc.objs == nil && len(f.Unchecked) == 0 {
					t.Errorf("an unreadable namespace is not recorded")
				}
				return
			}
			if !strings.Contains(f.Remedies[0].Summary, "namespaces/team-a is being deleted") || f.Remedies[0].Code != "" {
				t.Errorf("note = %+v", f.Remedies[0])
			}
			if f.Remedies[1].Code != ReasonStripFinalizer || !strings.Contains(f.Remedies[1].Summary, "went with a namespace being deleted") {
				t.Errorf("strip = %+v", f.Remedies[1])
			}
			if d := f.Blockers[0].Details; len(d) == 0 || !strings.Contains(d[len(d)-1], "cannot come back") {
				t.Errorf("blocker details = %v", d)
			}
		})
	}
}
