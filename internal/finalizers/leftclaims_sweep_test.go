package finalizers

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// In a sweep, a namespace's StatefulSets are cut out of the cluster-wide list the shared reads
// make: the namespace's own, in order, none of another; the bound kept; no LIST of the
// namespace. Where the cluster-wide list is refused, the namespace is listed alone.
func TestNamespaceStatefulSetsInASweep(t *testing.T) {
	set := func(ns, name string) runtime.Object {
		return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	lists := func(kube *kubefake.Clientset) (cluster, namespaced int) {
		for _, a := range kube.Actions() {
			if a.GetVerb() == "list" && a.GetResource().Resource == "statefulsets" {
				if a.GetNamespace() == "" {
					cluster++
				} else {
					namespaced++
				}
			}
		}
		return cluster, namespaced
	}
	for _, tc := range []struct {
		name                  string
		objects               []runtime.Object
		refuseCluster         bool
		want                  string
		more                  bool
		clusterLists, nsLists int
	}{
		{name: "cut out of the cluster-wide list", objects: []runtime.Object{set("a", "x"), set("data", "one"), set("data", "two"), set("z", "y")},
			want: "one,two,", clusterLists: 1},
		{name: "none in the namespace", objects: []runtime.Object{set("a", "x")}, clusterLists: 1},
		{name: "the cluster-wide list refused", objects: []runtime.Object{set("a", "x"), set("data", "one")}, refuseCluster: true,
			want: "one,", clusterLists: 1, nsLists: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewSimpleClientset(tc.objects...)
			if tc.refuseCluster {
				kube.PrependReactor("list", "statefulsets", func(a clienttesting.Action) (bool, runtime.Object, error) {
					if a.GetNamespace() == "" {
						return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "statefulsets"}, "", nil)
					}
					return false, nil, nil
				})
			}
			x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kube}, kinds.NewCatalog(nil, nil))
			x.sharedRead = true
			_, _ = x.workloads(context.Background())
			for range 2 {
				got, err := x.namespaceStatefulSets(context.Background(), "data")
				if err != nil {
					t.Fatal(err)
				}
				names := ""
				for _, s := range got.Items {
					names += s.Name + ","
				}
				if names != tc.want || got.more != tc.more {
					t.Errorf("got %q (more %v), want %q (more %v)", names, got.more, tc.want, tc.more)
				}
			}
			if c, n := lists(kube); c != tc.clusterLists || n != tc.nsLists {
				t.Errorf("%d cluster-wide and %d namespaced LISTs, want %d and %d", c, n, tc.clusterLists, tc.nsLists)
			}
		})
	}
	t.Run("the bound", func(t *testing.T) {
		var objs []runtime.Object
		for i := range maxListedForClaims + 1 {
			objs = append(objs, set("data", fmt.Sprintf("s%04d", i)))
		}
		x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(objs...)}, kinds.NewCatalog(nil, nil))
		x.sharedRead = true
		got, err := x.namespaceStatefulSets(context.Background(), "data")
		if err != nil || len(got.Items) != maxListedForClaims || !got.more || got.Items[0].Name != "s0000" {
			t.Errorf("got %d items (more %v, err %v), want the first %d and more", len(got.Items), got.more, err, maxListedForClaims)
		}
	})
}
