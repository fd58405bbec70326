package execute

import (
	"errors"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Eviction API's refusals, as pkg/registry/core/pod/storage/eviction.go builds them, are
// told from throttling and other failures.
func TestIsBudgetRefusal(t *testing.T) {
	withCause := func(err *apierrors.StatusError) error {
		err.ErrStatus.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget db needs 1 healthy pods and has 1 currently"}}}
		return err
	}
	pdb := schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"budget allows no disruption (429)", withCause(apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)), true},
		{"budget negative (403)", withCause(apierrors.NewForbidden(pdb, "db", errors.New("pdb disruptions allowed is negative"))), true},
		{"several budgets (500)", apierrors.NewInternalError(errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")), true},
		{"API server throttling (429)", apierrors.NewTooManyRequests("too many requests", 1), false},
		{"forbidden by RBAC", apierrors.NewForbidden(schema.GroupResource{Resource: "pods/eviction"}, "db-0", errors.New("no")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isBudgetRefusal(tc.err); got != tc.want {
				t.Errorf("isBudgetRefusal = %v, want %v", got, tc.want)
			}
		})
	}
}
