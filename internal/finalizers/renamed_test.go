package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apitypes "k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

func TestRenamedTo(t *testing.T) {
	got := renamedTo("old.example.app/composite-x", []string{"new.example.io/composite-x", "new.example.io/composite-y", "old.example.app/composite-x", "composite-x"})
	if strings.Join(got, ",") != "new.example.io/composite-x" {
		t.Errorf("renamedTo = %q", got)
	}
	if got := renamedTo("kubernetes", []string{"x.io/kubernetes"}); got != nil {
		t.Errorf("a finalizer without a domain has no renamed form: %q", got)
	}
}

// A finalizer is a name its running controller no longer writes when the type's live objects
// carry it under another domain and none carries it; one live object still carrying it, two
// different new names, or no evidence at all leave it alone.
func TestRenamedFinalizer(t *testing.T) {
	res := kinds.Resource{Group: "e2e.example.com", Version: "v1", Resource: "ecrrepositories", Kind: "EcrRepository", Namespaced: true}
	const old, renamed = "metacontroller.app/compositecontroller-ecr", "metacontroller.io/compositecontroller-ecr"
	obj := func(name string, deleting bool, fins ...string) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "e2e.example.com/v1", Kind: "EcrRepository"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", UID: apitypes.UID("uid-" + name), Finalizers: fins}}
		if deleting {
			now := metav1.NewTime(time.Now())
			m.DeletionTimestamp = &now
		}
		return m
	}
	stuck := obj("stuck", true, old)
	for _, tc := range []struct {
		name   string
		stuck  *metav1.PartialObjectMetadata
		others []runtime.Object
		want   string
	}{
		{"live objects carry the new name", stuck, []runtime.Object{obj("live", false, renamed)}, "1 of its type's objects"},
		{"the object itself carries both", obj("both", true, old, renamed), nil, "the object itself carries"},
		{"a live object still carries the old name", stuck, []runtime.Object{obj("live", false, renamed), obj("older", false, old)}, ""},
		{"only deleting objects carry the new name", stuck, []runtime.Object{obj("going", true, renamed)}, ""},
		{"two new names", stuck, []runtime.Object{obj("a", false, renamed), obj("b", false, "other.example.net/compositecontroller-ecr")}, ""},
		{"no evidence", stuck, []runtime.Object{obj("live", false)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			objs := append([]runtime.Object{tc.stuck}, tc.others...)
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: metadatafake.NewSimpleMetadataClient(scheme, objs...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{res}, nil))
			why, gaps := x.renamedFinalizer(context.Background(), subject{res: res, obj: tc.stuck}, old)
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			if (tc.want == "") != (why == "") || !strings.Contains(why, tc.want) {
				t.Errorf("why = %q, want one containing %q", why, tc.want)
			}
		})
	}
}
