package finalizers

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A gone owner holds the finalizer unless its remover reconciles the object's own type: a
// controller that may update the custom resource's status (a rule naming the type) finalizes it
// directly; one that may only update it, a cluster-admin one, a core object and an unknown
// remover keep the owner as the blocker.
func TestOwnerBlocks(t *testing.T) {
	trials := kinds.Resource{Group: "ml.example.io", Version: "v1", Resource: "trials", Kind: "Trial", Namespaced: true}
	pods := kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	withStatus := []rbacv1.PolicyRule{{APIGroups: []string{"ml.example.io"}, Resources: []string{"trials", "trials/status"}, Verbs: []string{"*"}}}
	updateOnly := []rbacv1.PolicyRule{{APIGroups: []string{"ml.example.io"}, Resources: []string{"trials"}, Verbs: []string{"get", "update"}}}
	admin := []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}
	podStatus := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "pods/status"}, Verbs: []string{"*"}}}
	remover := ObjectRef{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: "ml", Name: "trial-controller"}
	for _, tc := range []struct {
		name    string
		res     kinds.Resource
		rules   []rbacv1.PolicyRule
		remover ObjectRef
		want    bool
	}{
		{"writes the type's status", trials, withStatus, remover, false},
		{"only updates the type", trials, updateOnly, remover, true},
		{"cluster-admin", trials, admin, remover, true},
		{"a core object", pods, podStatus, remover, true},
		{"no remover known", trials, withStatus, ObjectRef{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := fakeExplainer(controllerObjects("ml", "trial-controller", tc.rules))
			o := subject{res: tc.res, obj: &metav1.ObjectMeta{Name: "t1", Namespace: "ml"}}
			if got := x.ownerBlocks(context.Background(), o, tc.remover); got != tc.want {
				t.Errorf("ownerBlocks = %v, want %v", got, tc.want)
			}
		})
	}
}

// withoutPassingOwner drops only the gone owner, and only when it does not block.
func TestWithoutPassingOwner(t *testing.T) {
	found := []dangling{{ref: ObjectRef{Resource: "experiments", Name: "e"}, owner: true}, {ref: ObjectRef{Resource: "nodes", Name: "n"}}}
	if got := withoutPassingOwner(found, true); len(got) != 2 {
		t.Errorf("blocking owner dropped: %+v", got)
	}
	if got := withoutPassingOwner(found, false); len(got) != 1 || got[0].owner {
		t.Errorf("passing owner kept or other reference dropped: %+v", got)
	}
}
