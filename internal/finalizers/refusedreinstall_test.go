package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// An operator deleted with the namespace it ran in (opensearch-k8s-operator#976) cannot be
// reinstalled there: the step that says so replaces "reinstall it", and the strip says why it
// is the way out. In a live namespace the reinstall step stays.
func TestReinstallRefusedInNamespaceBeingDeleted(t *testing.T) {
	sa := ObjectRef{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Namespace: "opensearch", Name: "opensearch-operator-controller-manager"}
	finalizer := func() Finalizer {
		return Finalizer{Name: "Opster", Controllers: []Controller{{Object: sa, Found: false}},
			Remedies: []Remediation{
				{Code: ReasonReinstallController, Summary: "Reinstall the workload that ran as " + sa.String() + "; it then removes the finalizer itself."},
				{Code: ReasonStripFinalizer, Summary: "Only if the controller is gone for good: remove finalizer Opster by hand.", LastResort: true},
			}}
	}
	now := metav1.Now()
	for _, tc := range []struct {
		name      string
		ns        *corev1.Namespace
		reinstall bool
	}{
		{"namespace being deleted", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "opensearch", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}, false},
		{"live namespace", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "opensearch"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer([]runtime.Object{tc.ns})
			f := finalizer()
			x.reinstallRefused(context.Background(), &f)
			if len(f.Unchecked) > 0 {
				t.Fatalf("unchecked: %v", f.Unchecked)
			}
			if got := f.Remedies[0].Code == ReasonReinstallController; got != tc.reinstall {
				t.Fatalf("steps = %+v, want reinstall %v", f.Remedies, tc.reinstall)
			}
			if tc.reinstall {
				return
			}
			if !strings.Contains(f.Remedies[0].Summary, "namespaces/opensearch is being deleted") || f.Remedies[1].Code != ReasonStripFinalizer ||
				!strings.Contains(f.Remedies[1].Summary, "namespaces/opensearch, which is being deleted") {
				t.Errorf("steps = %+v", f.Remedies)
			}
		})
	}
}
