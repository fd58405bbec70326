package execute

import (
	"context"
	"errors"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubeforensics/suite/internal/retire"
)

// A request is bound to the version reviewed when there is one (and refused before it is sent
// when the re-read is at another), else to the version the step re-read; never to the UID alone.
func TestPreconditions(t *testing.T) {
	ref := retire.Ref{Kind: "PersistentVolumeClaim", Namespace: "apps", Name: "data"}
	obj := &metav1.ObjectMeta{UID: "u1", ResourceVersion: "12"}
	cases := []struct {
		name    string
		bound   Bound
		wantRV  string
		changed bool
	}{
		{"reviewed, unchanged", Bound{UID: "u1", ResourceVersion: "12"}, "12", false},
		{"reviewed, edited since", Bound{UID: "u1", ResourceVersion: "11"}, "", true},
		{"reviewed, replaced since", Bound{UID: "u0", ResourceVersion: "12"}, "", true},
		{"nothing reviewed: the re-read's version", Bound{}, "12", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pre, err := preconditions(ref, tc.bound, obj)
			var changed *ChangedError
			if got := errors.As(err, &changed); got != tc.changed {
				t.Fatalf("changed %v (%v), want %v", got, err, tc.changed)
			}
			if tc.changed {
				return
			}
			if pre.UID == nil || *pre.UID != "u1" || pre.ResourceVersion == nil || *pre.ResourceVersion != tc.wantRV {
				t.Fatalf("preconditions %+v, want UID u1 and resourceVersion %s", pre, tc.wantRV)
			}
		})
	}
}

// A Conflict on a bound request becomes a ChangedError that names the version checked, the one
// now and what differs; other errors pass through.
func TestConflictNamesTheChange(t *testing.T) {
	ref := retire.Ref{Kind: "PersistentVolumeClaim", Namespace: "apps", Name: "data"}
	checked := map[string]any{"metadata": map[string]any{"uid": "u1", "resourceVersion": "12", "labels": map[string]any{"app": "db"}},
		"spec": map[string]any{"volumeName": "pv-1"}}
	now := map[string]any{"metadata": map[string]any{"uid": "u1", "resourceVersion": "13", "labels": map[string]any{"app": "db", "edited": "yes"}},
		"spec": map[string]any{"volumeName": "pv-1"}}
	get := func(context.Context) (map[string]any, error) { return now, nil }
	refused := apierrors.NewConflict(schema.GroupResource{Resource: "persistentvolumeclaims"}, "data", errors.New("the ResourceVersion in the precondition (12) does not match"))
	err := conflict(context.Background(), ref, Bound{UID: "u1", ResourceVersion: "12"}, checked, refused, get)
	var changed *ChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("not a ChangedError: %v", err)
	}
	if changed.ResourceVersion != "13" || changed.Was.ResourceVersion != "12" || !changed.Reviewed || !reflect.DeepEqual(changed.Differs, []string{"labels"}) {
		t.Fatalf("%+v", changed)
	}
	want := "PersistentVolumeClaim apps/data changed: resourceVersion 12 reviewed, now 13 (labels differ); the API server refused the request: " + refused.Error()
	if err.Error() != want {
		t.Fatalf("got  %s\nwant %s", err, want)
	}
	other := apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "data", errors.New("no"))
	if got := conflict(context.Background(), ref, Bound{}, checked, other, get); got != other {
		t.Fatalf("a non-Conflict error changed: %v", got)
	}
	if got := differs(checked, checked); !reflect.DeepEqual(got, []string{"fields other than labels, annotations, spec, ownerReferences, finalizers and status"}) {
		t.Fatalf("differs of the same object: %v", got)
	}
}
