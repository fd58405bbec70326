package finalizers

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A running remover that has done nothing, on an object whose spec holds an integer that is the
// `spec.<kind>Id` of another kind of its group in its namespace, whose workload (a StatefulSet it
// or an owner it shares owns) is not ready: that workload is named, and bringing it back comes
// first. A ready workload, an id that matches nothing, or a peer that owns no workload and
// shares no owner with one says nothing.
func TestUnreadyPeers(t *testing.T) {
	shard := kinds.Resource{Group: "store.example.io", Version: "v1", Resource: "shards", Kind: "Shard", Namespaced: true, Verbs: []string{"get", "list"}}
	member := kinds.Resource{Group: "store.example.io", Version: "v1", Resource: "members", Kind: "Member", Namespaced: true, Verbs: []string{"get", "list"}}
	for _, tc := range []struct {
		name    string
		leader  int64
		ready   int32
		ownerOf string // the UID owning the StatefulSet
		want    bool
		spec    map[string]any // the object's spec; nil: leader and replicas hold leader
		twin    bool           // a second member holds the same id
	}{
		{"the named member's workload is not ready", 0, 0, "uid-group", true, nil, false},
		{"the member owns the workload itself", 0, 0, "uid-m0", true, nil, false},
		{"the workload is ready", 0, 1, "uid-group", false, nil, false},
		{"the id matches no member", 7, 0, "uid-group", false, nil, false},
		{"the workload belongs to something else", 0, 0, "uid-other", false, nil, false},
		// The field's name ties the id to the kind, or at least names no measure.
		{"a field naming the kind", 0, 0, "uid-group", true, map[string]any{"primaryMember": int64(0)}, false},
		{"a replica count", 0, 0, "uid-group", false, map[string]any{"replicas": int64(0)}, false},
		{"a port", 0, 0, "uid-group", false, map[string]any{"port": int64(0)}, false},
		{"a container port", 0, 0, "uid-group", false, map[string]any{"containerPort": int64(0)}, false},
		{"a list of ports", 0, 0, "uid-group", false, map[string]any{"ports": []any{int64(0)}}, false},
		{"a generation", 0, 0, "uid-group", false, map[string]any{"generation": int64(0)}, false},
		{"a replication factor", 0, 0, "uid-group", false, map[string]any{"replicationFactor": int64(0)}, false},
		{"a count under a plural name", 0, 0, "uid-group", false, map[string]any{"partitions": int64(0)}, false},
		{"a timeout", 0, 0, "uid-group", false, map[string]any{"timeoutSeconds": int64(0)}, false},
		// The value's type: only an integer is an id.
		{"a boolean", 0, 0, "uid-group", false, map[string]any{"leader": false}, false},
		{"a string", 0, 0, "uid-group", false, map[string]any{"leader": "0"}, false},
		{"a fraction", 0, 0, "uid-group", false, map[string]any{"leader": 0.5}, false},
		// An id two members hold is no identity.
		{"two members hold the id", 0, 0, "uid-group", false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "store.example.io/v1", "kind": "Member",
				"metadata": map[string]any{"name": "m0", "namespace": "ns", "uid": "uid-m0",
					"ownerReferences": []any{map[string]any{"apiVersion": "store.example.io/v1", "kind": "Group", "name": "g", "uid": "uid-group"}}},
				"spec": map[string]any{"memberId": int64(0)}}}
			objs := []runtime.Object{m}
			if tc.twin {
				objs = append(objs, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "store.example.io/v1", "kind": "Member",
					"metadata": map[string]any{"name": "m0-twin", "namespace": "ns", "uid": "uid-m0-twin"},
					"spec":     map[string]any{"memberId": int64(0)}}})
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
				map[schema.GroupVersionResource]string{member.GVR(): "MemberList", shard.GVR(): "ShardList"}, objs...)
			one := int32(1)
			sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "store-g", Namespace: "ns",
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "store.example.io/v1", Kind: "Group", Name: "g", UID: types.UID(tc.ownerOf)}}},
				Spec:   appsv1.StatefulSetSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "store"}}},
				Status: appsv1.StatefulSetStatus{ReadyReplicas: tc.ready}}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(sts), Dynamic: dyn}
			x := New(c, kinds.NewCatalog([]kinds.Resource{shard, member}, nil))
			spec := tc.spec
			if spec == nil {
				spec = map[string]any{"leader": tc.leader, "replicas": []any{tc.leader}}
			}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
			o := subject{res: shard, obj: &metav1.ObjectMeta{Name: "s-0", Namespace: "ns", UID: "uid-s"}}
			ev, reasons, fixes, gaps := x.unreadyPeers(context.Background(), o, ownWord{obj: body})
			if len(gaps) > 0 {
				t.Fatalf("gaps %v", gaps)
			}
			if !tc.want {
				if len(ev)+len(reasons)+len(fixes) > 0 {
					t.Fatalf("evidence %q, fixes %+v, want none", ev, fixes)
				}
				return
			}
			said := "spec.leader and spec.replicas name"
			if tc.spec != nil {
				said = "spec.primaryMember names"
			}
			if len(ev) != 1 || !strings.Contains(ev[0], said+" members.store.example.io/m0 -n ns by its spec.memberId 0") || !strings.Contains(ev[0], "statefulsets.apps/store-g -n ns") {
				t.Fatalf("evidence %q, want the member and its workload named", ev)
			}
			if len(fixes) != 1 || fixes[0].Code != ReasonReadyOrRemoveAwaited || !strings.Contains(fixes[0].Command, "describe statefulset/store-g") {
				t.Fatalf("fixes %+v, want bringing the workload back", fixes)
			}
			f := Finalizer{Remedies: []Remediation{{Code: ReasonReadControllerLogs}, {Code: ReasonStripFinalizer}}}
			withFailedCleanup(&f, &Stall{}, ev, reasons, fixes)
			if f.Remedies[0].Code != ReasonReadyOrRemoveAwaited {
				t.Errorf("steps %+v, want the workload first", f.Remedies)
			}
		})
	}
}

// The words of a field name and how a name may hold a peer's id.
func TestIDTie(t *testing.T) {
	type in struct {
		field, kind string
		list        bool
	}
	checkAll(t, "idTie", func(i in) bool { return idTie(i.field, i.kind, i.list) != "" }, []expect[in, bool]{
		{in{"spuId", "Spu", false}, true},
		{in{"leaderSpu", "Spu", false}, true},
		{in{"spus", "Spu", true}, true},
		{in{"leader", "Spu", false}, true},
		{in{"replicas", "Spu", true}, true},
		{in{"replicas", "Spu", false}, false},
		{in{"partitions", "Spu", false}, false},
		{in{"port", "Spu", false}, false},
		{in{"targetPort", "Spu", false}, false},
		{in{"ports", "Spu", true}, false},
		{in{"observedGeneration", "Spu", false}, false},
		{in{"replicationFactor", "Spu", false}, false},
		{in{"max_retries", "Spu", false}, false},
	})
}
