package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// An APIService served from a namespace that is itself being deleted (stashed/stash#785: the
// operator's namespace deleted, its two APIServices left) cannot be brought back: the step that
// would revive the workload is not offered, and deleting the APIService is the fix, first, not a
// last resort. The same backend in a namespace that lives keeps the revive-first order.
func TestBackendRemediesNamespaceGoing(t *testing.T) {
	ctl := controllerObjects("stash", "stash-operator", nil)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "stash-operator", Namespace: "stash"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": "stash-operator"}}}
	b := Blocker{Code: ReasonAPIServiceUnavailable, Object: ObjectRef{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Name: "v1alpha1.admission.stash.appscode.com"},
		Details: []string{`MissingEndpoints: endpointslices for service/stash-operator in "stash" have no addresses with port name "api"`},
		service: &serviceRef{namespace: "stash", name: "stash-operator"}}
	del := Remediation{Code: ReasonDeleteAPIService, Summary: "Delete APIService v1alpha1.admission.stash.appscode.com, whose API was removed."}
	now := metav1.Now()
	for _, tc := range []struct {
		name  string
		ns    *corev1.Namespace
		going bool
	}{
		{"namespace being deleted", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stash", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}, true},
		{"namespace lives", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "stash"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(append([]runtime.Object(nil), ctl...), svc, tc.ns)
			x := fakeExplainer(objs)
			out := x.backendRemedies(context.Background(), b, del)
			if len(out) == 0 {
				t.Fatal("no step")
			}
			if tc.going {
				if len(out) != 1 || out[0].Code != ReasonDeleteAPIService || out[0].LastResort {
					t.Fatalf("steps = %+v, want only the deletion, not as a last resort", out)
				}
				for _, want := range []string{"namespaces/stash", "is being deleted", "nothing will serve apiservices.apiregistration.k8s.io/v1alpha1.admission.stash.appscode.com again"} {
					if !strings.Contains(out[0].Summary, want) {
						t.Errorf("step %q does not say %q", out[0].Summary, want)
					}
				}
				return
			}
			if out[0].Code == ReasonDeleteAPIService || !out[len(out)-1].LastResort {
				t.Fatalf("steps = %+v, want the backend first and the deletion last", out)
			}
		})
	}
}
