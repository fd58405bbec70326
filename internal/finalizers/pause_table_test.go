package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// Pause detection as a table, without a control plane: an object (metadata, and its body when
// read) and its owners in, the pause markers found on the object and its owner chain out.
func TestPauseDetectionTable(t *testing.T) {
	machines := kinds.Resource{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "machines", Kind: "Machine", Namespaced: true, Verbs: []string{"get", "list"}}
	sets := kinds.Resource{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "machinesets", Kind: "MachineSet", Namespaced: true, Verbs: []string{"get", "list"}}
	clusters := kinds.Resource{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "clusters", Kind: "Cluster", Namespaced: true, Verbs: []string{"get", "list"}}
	owned := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "cluster.x-k8s.io/v1beta1", Kind: kind, Name: name, UID: types.UID(kind + "-" + name)}}
	}
	obj := func(kind, name string, annotations, labels map[string]string, spec map[string]any, owners []metav1.OwnerReference) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": kind}}
		if spec != nil {
			u.Object["spec"] = spec
		}
		u.SetName(name)
		u.SetNamespace("infra")
		u.SetUID(types.UID(kind + "-" + name))
		u.SetAnnotations(annotations)
		u.SetLabels(labels)
		u.SetOwnerReferences(owners)
		return u
	}
	for _, tc := range []struct {
		name   string
		object *unstructured.Unstructured
		// body says whether the object's body (its spec) was read.
		body   bool
		owners []runtime.Object
		want   []string // object/field=value
	}{
		{"nothing paused", obj("Machine", "m", map[string]string{"note": "paused yesterday"}, nil, map[string]any{"replicas": int64(1)}, nil), true, nil, nil},
		{"an annotation naming a pause", obj("Machine", "m", map[string]string{"cluster.x-k8s.io/paused": ""}, nil, nil, nil), false, nil,
			[]string{"machines/m metadata.annotations[cluster.x-k8s.io/paused]="}},
		{"a pause key turned off is no marker", obj("Machine", "m", map[string]string{"example.com/suspend": "false"}, map[string]string{"paused": "no"}, nil, nil), false, nil, nil},
		{"a reconcile key turned off", obj("Machine", "m", nil, map[string]string{"kustomize.toolkit.fluxcd.io/reconcile": "disabled"}, nil, nil), false, nil,
			[]string{"machines/m metadata.labels[kustomize.toolkit.fluxcd.io/reconcile]=disabled"}},
		{"a reconcile key left on is no marker", obj("Machine", "m", map[string]string{"example.com/reconcile": "enabled"}, nil, nil, nil), false, nil, nil},
		{"spec.paused true", obj("Machine", "m", nil, nil, map[string]any{"paused": true, "suspend": false}, nil), true, nil,
			[]string{"machines/m spec.paused=true"}},
		{"spec fields are not seen when the body was not read", obj("Machine", "m", nil, nil, map[string]any{"paused": true}, nil), false, nil, nil},
		{"a paused owner two hops up", obj("Machine", "m", nil, nil, nil, owned("MachineSet", "ms")), false,
			[]runtime.Object{obj("MachineSet", "ms", nil, nil, nil, owned("Cluster", "c")), obj("Cluster", "c", nil, nil, map[string]any{"paused": true}, nil)},
			[]string{"clusters/c spec.paused=true"}},
		{"an owner that is gone is skipped", obj("Machine", "m", nil, nil, nil, owned("MachineSet", "gone")), false, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gvrs := map[schema.GroupVersionResource]string{machines.GVR(): "MachineList", sets.GVR(): "MachineSetList", clusters.GVR(): "ClusterList"}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), gvrs, tc.owners...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{machines, sets, clusters}, nil))
			var body *unstructured.Unstructured
			if tc.body {
				body = tc.object
			}
			markers, gaps := x.pauseMarkers(context.Background(), subject{res: machines, obj: tc.object}, body)
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			var got []string
			for _, m := range markers {
				got = append(got, m.Object.Resource+"/"+m.Object.Name+" "+m.Field+"="+m.Value)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("markers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
