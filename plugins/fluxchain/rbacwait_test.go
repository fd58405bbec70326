package fluxchain_test

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// awaitAllowed waits until the API server's authorizer lets user list kustomizations in ns
// (all namespaces when ns is ""). The RBAC authorizer reads bindings from an informer, so a
// binding just created may not be in force yet: a test that impersonates the user at once
// fails now and then with "cannot list kustomizations", before any code under test runs.
func awaitAllowed(t *testing.T, kube kubernetes.Interface, user, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Verb: "list", Group: "kustomize.toolkit.fluxcd.io", Resource: "kustomizations",
		},
	}}
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("the binding for %s never took effect: %v", user, err)
	}
}
