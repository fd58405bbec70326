package finalizers

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeforensics/suite/internal/kinds"
)

// A controller says it is deleting the object in a top-level status field; any other value,
// or the word elsewhere, is no such statement.
func TestDeletingStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status map[string]any
		want   string
	}{
		{"status.status Deleting", map[string]any{"status": "Deleting"}, "status.status=Deleting"},
		{"phase Terminating", map[string]any{"phase": "Terminating"}, "status.phase=Terminating"},
		{"state stopping", map[string]any{"state": "stopping"}, "status.state=stopping"},
		{"running", map[string]any{"status": "Healthy", "phase": "Running"}, ""},
		{"nested", map[string]any{"cluster": map[string]any{"phase": "Deleting"}}, ""},
		{"a sentence", map[string]any{"status": "Deleting the old ones"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{"status": tc.status}}
			f, v := deletingStatus(obj)
			got := ""
			if f != "" {
				got = f + "=" + v
			}
			if got != tc.want {
				t.Errorf("deletingStatus = %q, want %q", got, tc.want)
			}
		})
	}
	if f, _ := deletingStatus(nil); f != "" {
		t.Errorf("deletingStatus(nil) = %q", f)
	}
}

func TestDeletedInBackground(t *testing.T) {
	for _, tc := range []struct {
		fins []string
		want bool
	}{
		{[]string{"milvus.milvus.io/finalizer"}, true},
		{[]string{"milvus.milvus.io/finalizer", "foregroundDeletion"}, false},
		{[]string{"orphan"}, false},
		{nil, true},
	} {
		if got := deletedInBackground(tc.fins); got != tc.want {
			t.Errorf("deletedInBackground(%q) = %v, want %v", tc.fins, got, tc.want)
		}
	}
}

// The dependents that hold the owner are those that name it with blockOwnerDeletion and are not
// being deleted; a dependent without blockOwnerDeletion, one already going, and another owner's
// are not.
func TestLiveBlockingDependents(t *testing.T) {
	const uid = types.UID("u-1")
	yes, no := true, false
	now := metav1.Now()
	owned := func(name string, block *bool, deleting bool) metav1.PartialObjectMetadata {
		m := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
			OwnerReferences: []metav1.OwnerReference{{UID: uid, Kind: "Milvus", Name: "m", BlockOwnerDeletion: block}}}}
		if deleting {
			m.DeletionTimestamp = &now
		}
		return m
	}
	other := metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{UID: "u-2", BlockOwnerDeletion: &yes}}}}
	scan := &Scan{Types: []TypeObjects{
		{Resource: kinds.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true},
			Items: []metav1.PartialObjectMetadata{owned("m-standalone", &yes, false), owned("m-going", &yes, true), other}},
		{Resource: kinds.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true},
			Items: []metav1.PartialObjectMetadata{owned("m-svc", &yes, false), owned("m-loose", &no, false), owned("m-nil", nil, false)}},
	}}
	var got []string
	for _, r := range liveBlockingDependents(scan, uid) {
		got = append(got, r.String())
	}
	want := "deployments.apps/m-standalone -n default; services/m-svc -n default"
	if strings.Join(got, "; ") != want {
		t.Errorf("liveBlockingDependents = %q, want %q", got, want)
	}
}
