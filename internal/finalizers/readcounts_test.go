package finalizers

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// verbs counts the requests a fake client recorded, by verb.
func verbs(actions []clienttesting.Action) map[string]int {
	out := map[string]int{}
	for _, a := range actions {
		out[a.GetVerb()]++
	}
	return out
}

// The requests the unready-peer rule makes, as docs/why-terminating.md "Cost" counts them: per
// stalled finalizer whose object's spec holds an integer, one LIST of each other namespaced kind
// of its group in its namespace, at most maxPeerKinds, and, once a peer is named by id, one LIST
// of StatefulSets and one of Deployments.
func TestUnreadyPeersRequestCount(t *testing.T) {
	own := kinds.Resource{Group: "store.example.io", Version: "v1", Resource: "shards", Kind: "Shard", Namespaced: true, Verbs: []string{"get", "list"}}
	all := []kinds.Resource{own}
	lists := map[schema.GroupVersionResource]string{own.GVR(): "ShardList"}
	for i := 0; i < maxPeerKinds+2; i++ {
		k := fmt.Sprintf("Peer%c", 'a'+i)
		r := kinds.Resource{Group: own.Group, Version: "v1", Resource: fmt.Sprintf("peer%cs", 'a'+i), Kind: k, Namespaced: true, Verbs: []string{"get", "list"}}
		all = append(all, r)
		lists[r.GVR()] = k + "List"
	}
	for _, tc := range []struct {
		name             string
		peer             bool
		spec             map[string]any
		wantDyn, wantK8s int
	}{
		{"no peer holds the id", false, map[string]any{"leader": int64(3)}, maxPeerKinds, 0},
		{"a peer holds the id", true, map[string]any{"leader": int64(3)}, maxPeerKinds, 2},
		{"only a count: nothing listed", true, map[string]any{"replicas": int64(3)}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []runtime.Object
			if tc.peer {
				objs = append(objs, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "store.example.io/v1", "kind": "Peera",
					"metadata": map[string]any{"name": "p0", "namespace": "ns", "uid": "uid-p0"}, "spec": map[string]any{"peeraId": int64(3)}}})
			}
			dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, objs...)
			kube := kubefake.NewSimpleClientset()
			x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kube, Dynamic: dyn}, kinds.NewCatalog(all, nil))
			body := &unstructured.Unstructured{Object: map[string]any{"spec": tc.spec}}
			x.unreadyPeers(context.Background(), subject{res: own, obj: &metav1.ObjectMeta{Name: "s", Namespace: "ns"}}, ownWord{obj: body})
			if got := verbs(dyn.Actions()); got["list"] != tc.wantDyn || len(dyn.Actions()) != tc.wantDyn {
				t.Errorf("custom resource requests %v, want %d lists", got, tc.wantDyn)
			}
			if got := verbs(kube.Actions()); got["list"] != tc.wantK8s || len(kube.Actions()) != tc.wantK8s {
				t.Errorf("built-in requests %v, want %d lists", got, tc.wantK8s)
			}
		})
	}
}

// The requests the generated-objects cost makes, as "Cost" counts them: per stuck object with a
// generic strip, for each namespace (at most maxGeneratedNamespaces) its spec's `…Namespace`
// fields name, one metadata GET of each namespaced type served (events and its own type left
// out; at most maxGeneratedTypes).
func TestLeftGeneratedRequestCount(t *testing.T) {
	own := kinds.Resource{Group: "net.example.io", Version: "v1", Resource: "networks", Kind: "Network", Namespaced: true, Verbs: []string{"get", "list"}}
	all := []kinds.Resource{own,
		{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true, Verbs: []string{"get", "list"}},
		{Version: "v1", Resource: "namespaces", Kind: "Namespace", Verbs: []string{"get", "list"}}}
	const types = 5
	for i := 0; i < types; i++ {
		all = append(all, kinds.Resource{Group: "g.example.io", Version: "v1", Resource: fmt.Sprintf("t%c", 'a'+i), Kind: fmt.Sprintf("T%c", 'a'+i), Namespaced: true, Verbs: []string{"get"}})
	}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	meta := metadatafake.NewSimpleMetadataClient(scheme)
	x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Metadata: meta}, kinds.NewCatalog(all, nil))
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "net.example.io/v1", "kind": "Network",
		"metadata": map[string]any{"name": "net-a", "namespace": "net-system"},
		"spec":     map[string]any{"aNamespace": "one", "bNamespace": "two", "cNamespace": "three"}}}
	e := &Explanation{Finalizers: []Finalizer{{Name: "x.example.io/f", Remedies: []Remediation{{Code: ReasonStripFinalizer, Cost: "left behind: whatever", LastResort: true}}}}}
	x.leftGenerated(context.Background(), e, subject{res: own, obj: obj}, obj)
	if got, want := verbs(meta.Actions()), maxGeneratedNamespaces*types; len(got) != 1 || got["get"] != want {
		t.Errorf("requests %v, want %d metadata GETs", got, want)
	}
}
