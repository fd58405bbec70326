package rbacwait

import (
	"context"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// answering makes a fake authorizer that refuses the first refusals reviews, then allows, and
// records what it was asked.
func answering(refusals int, asked *[]authorizationv1.SubjectAccessReviewSpec) *fake.Clientset {
	kube := fake.NewSimpleClientset()
	kube.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		*asked = append(*asked, review.Spec)
		review.Status.Allowed = len(*asked) > refusals
		return true, review, nil
	})
	return kube
}

func TestAwaitAllowedWaitsForTheBinding(t *testing.T) {
	var asked []authorizationv1.SubjectAccessReviewSpec
	attrs := authorizationv1.ResourceAttributes{Namespace: "team", Verb: "list", Group: "apps", Resource: "deployments"}
	if err := awaitAllowed(context.Background(), answering(2, &asked), "system:serviceaccount:team:viewer", attrs, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3 (two refusals, then allowed)", len(asked))
	}
	if got := asked[2]; got.User != "system:serviceaccount:team:viewer" || got.ResourceAttributes == nil || *got.ResourceAttributes != attrs {
		t.Errorf("review %+v, want the user and the attributes given", got)
	}
}

func TestAwaitAllowedGivesUp(t *testing.T) {
	var asked []authorizationv1.SubjectAccessReviewSpec
	err := awaitAllowed(context.Background(), answering(1<<30, &asked), "nobody", authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}, 300*time.Millisecond)
	if err == nil {
		t.Fatal("a binding never in force was waited for as if it were")
	}
	if len(asked) == 0 {
		t.Error("the authorizer was never asked")
	}
}
