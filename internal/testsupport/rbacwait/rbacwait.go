// Package rbacwait lets a live test wait until a (Cluster)RoleBinding it just created is in
// force before it impersonates the bound user.
//
// The RBAC authorizer of kube-apiserver reads roles and bindings from informers, so a binding
// the API server has just accepted may not be applied to requests for a short while: a test that
// runs a plugin with --as at once is now and then refused ("cannot list …") before any code under
// test runs. A SubjectAccessReview is answered by the same authorizer, so polling one until it
// allows the request is the wait, bounded.
package rbacwait

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Timeout bounds one wait; informers deliver a new binding well within it.
const Timeout = 30 * time.Second

// AwaitAllowed waits until the authorizer lets user (a user name, or a service account's
// "system:serviceaccount:NS:NAME") do what attrs describe, and fails the test if it never does.
// attrs should be a request the new binding is what allows (its Namespace "" for all
// namespaces), so that the answer proves that binding, and the role it names, in force.
func AwaitAllowed(t testing.TB, kube kubernetes.Interface, user string, attrs authorizationv1.ResourceAttributes) {
	t.Helper()
	if err := awaitAllowed(context.Background(), kube, user, attrs, Timeout); err != nil {
		t.Fatalf("the binding for %s to %s %s.%s in %q never took effect: %v", user, attrs.Verb, attrs.Resource, attrs.Group, attrs.Namespace, err)
	}
}

func awaitAllowed(ctx context.Context, kube kubernetes.Interface, user string, attrs authorizationv1.ResourceAttributes, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &attrs}}
	return wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	})
}
