package finalizers

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// An APIService whose adapter runs Ready behind a Service with ready endpoints, and that the API
// server still cannot use (KEDA's metrics adapter behind a firewall, kedacore/keda#1231), is not
// "down": the first step names the path and the failure, never a missing endpoint; deleting the
// APIService stays the last resort.
func TestBackendRemediesReadyButUnreachable(t *testing.T) {
	ctl := controllerObjects("keda", "keda-metrics-apiserver", nil)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "keda-metrics-apiserver", Namespace: "keda"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app.kubernetes.io/name": "keda-metrics-apiserver"}}}
	ready := true
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "keda-metrics-apiserver-x1", Namespace: "keda",
		Labels: map[string]string{discoveryv1.LabelServiceName: "keda-metrics-apiserver"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.12"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	b := Blocker{Code: ReasonAPIServiceUnavailable, Object: ObjectRef{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Name: "v1beta1.external.metrics.k8s.io"},
		Details: []string{"FailedDiscoveryCheck: failing or missing response from https://10.244.0.12:6443/apis/external.metrics.k8s.io/v1beta1: context deadline exceeded"},
		service: &serviceRef{namespace: "keda", name: "keda-metrics-apiserver"}}
	del := Remediation{Code: ReasonDeleteAPIService, Summary: "Delete APIService v1beta1.external.metrics.k8s.io, whose API was removed."}

	t.Run("ready endpoints", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), ctl...), svc, slice))
		out := x.backendRemedies(context.Background(), b, del)
		if len(out) != 2 || out[0].Code == ReasonDeleteAPIService || !out[1].LastResort || out[1].Code != ReasonDeleteAPIService {
			t.Fatalf("steps = %+v", out)
		}
		for _, want := range []string{"services/keda-metrics-apiserver -n keda has ready endpoints", "FailedDiscoveryCheck", "firewall"} {
			if !strings.Contains(out[0].Summary, want) {
				t.Errorf("first step %q does not say %q", out[0].Summary, want)
			}
		}
		if strings.Contains(out[0].Summary, "no ready endpoint") {
			t.Errorf("first step %q claims no ready endpoint", out[0].Summary)
		}
	})
	t.Run("endpoints unreadable", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), ctl...), svc, slice))
		x.c.Kube.(*kubefake.Clientset).PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(discoveryv1.Resource("endpointslices"), "", errors.New("denied"))
		})
		out := x.backendRemedies(context.Background(), b, del)
		if len(out) != 2 || !strings.Contains(out[0].Summary, "could not be read") || strings.Contains(out[0].Summary, "yet it has no ready endpoint") {
			t.Fatalf("steps = %+v", out)
		}
	})
	t.Run("no ready endpoint", func(t *testing.T) {
		x := fakeExplainer(append(append([]runtime.Object(nil), ctl...), svc))
		out := x.backendRemedies(context.Background(), b, del)
		if len(out) != 2 || !strings.Contains(out[0].Summary, "has no ready endpoint") {
			t.Fatalf("steps = %+v", out)
		}
	})
}
