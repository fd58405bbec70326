package finalizers

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/report"
)

// namespaceGoing says when a namespace's deletion was requested, nothing for a live one, and
// for one it could not read (gone, or refused) that it did not read it, with the failed read
// recorded where the caller keeps its gaps, or nowhere when it keeps none.
func TestNamespaceGoing(t *testing.T) {
	deleted := metav1.NewTime(time.Date(2026, 12, 3, 7, 0, 0, 0, time.FixedZone("CET", 3600)))
	going := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", DeletionTimestamp: &deleted, Finalizers: []string{"kubernetes"}}}
	live := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	forbidden := func(x *Explainer) {
		x.c.Kube.(*kubefake.Clientset).PrependReactor("get", "namespaces", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "team-a", nil)
		})
	}
	for _, tc := range []struct {
		name      string
		objs      []runtime.Object
		refuse    bool
		record    bool
		wantSince string
		wantRead  bool
		wantGaps  int
		reason    report.GapReason
	}{
		{"being deleted", []runtime.Object{going}, false, true, "2026-12-03T06:00:00Z", true, 0, ""},
		{"live", []runtime.Object{live}, false, true, "", true, 0, ""},
		{"not found, recorded", nil, false, true, "", false, 1, report.GapNotFound},
		{"refused, recorded", []runtime.Object{going}, true, true, "", false, 1, report.GapForbidden},
		{"refused, nowhere to record", []runtime.Object{going}, true, false, "", false, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(tc.objs)
			if tc.refuse {
				forbidden(x)
			}
			gaps := []report.Gap{{What: "an earlier gap"}}
			var unchecked *[]report.Gap
			if tc.record {
				unchecked = &gaps
			}
			since, read := x.namespaceGoing(context.Background(), "team-a", unchecked)
			got := ""
			if since != nil {
				got = since.Format(time.RFC3339)
			}
			if got != tc.wantSince || read != tc.wantRead {
				t.Errorf("since, read = %q, %v; want %q, %v", got, read, tc.wantSince, tc.wantRead)
			}
			if len(gaps)-1 != tc.wantGaps || gaps[0].What != "an earlier gap" {
				t.Fatalf("gaps = %+v, want %d added after the earlier one", gaps, tc.wantGaps)
			}
			if tc.wantGaps > 0 && (gaps[1].Subject.Name != "team-a" || gaps[1].Subject.Resource != "namespaces" || gaps[1].Reason != tc.reason) {
				t.Errorf("gap = %+v, want it to name namespaces/team-a, %s", gaps[1], tc.reason)
			}
		})
	}
}
