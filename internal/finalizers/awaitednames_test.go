package finalizers

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

var (
	testSpread  = kinds.Resource{Group: "types.fleet.example.io", Version: "v1", Resource: "spreaddeployments", Kind: "SpreadDeployment", Namespaced: true, Verbs: []string{"get", "list"}}
	testMembers = kinds.Resource{Group: "core.fleet.example.io", Version: "v1", Resource: "memberclusters", Kind: "MemberCluster", Namespaced: true, Verbs: []string{"get", "list"}}
	// Another product's cluster kind, under a parent domain many projects share.
	testOtherClusters = kinds.Resource{Group: "cluster.x-k8s.io", Version: "v1", Resource: "clusters", Kind: "Cluster", Namespaced: true, Verbs: []string{"get", "list"}}
)

func TestRecordedAndAwaitedNames(t *testing.T) {
	spec := map[string]any{
		"placement":  map[string]any{"clusterNames": []any{"c1", "c2"}},
		"members":    []any{map[string]any{"name": "m1", "weight": int64(2)}},
		"containers": []any{map[string]any{"name": "app", "image": "nginx:1.15"}},
		"ids":        []any{"a"},
	}
	got := []string{}
	for _, r := range recordedNames(spec) {
		got = append(got, r.path+":"+r.stem+":"+r.name)
	}
	want := "spec.containers:container:app spec.members:member:m1 spec.placement.clusterNames:cluster:c1 spec.placement.clusterNames:cluster:c2"
	if strings.Join(got, " ") != want {
		t.Fatalf("recorded %q, want %q", strings.Join(got, " "), want)
	}
	w := ownWord{events: []Event{
		{Reason: "DeleteFailed", Message: `waiting for clusters c1 to become ready to verify that obj default/nginx has been deleted`},
		{Reason: "Scheduled", Message: `placed on c2 and m1`},
	}}
	aw := awaitedNames(w, recordedNames(spec))
	if len(aw) != 1 || aw[0].name != "c1" || aw[0].source != "event DeleteFailed" {
		t.Fatalf("awaited %+v, want c1 alone: c2 and m1 are named only by a message that speaks of no wait", aw)
	}
}

// A federated object's controller waits for member clusters it records by name; the one its
// own event names is found among its product's cluster kinds (not another product's, under a
// shared parent domain) and, not ready, is the blocker with the fix to bring it back or delete
// it. A member that reports itself ready is not a blocker; a name found nowhere, when one kind
// alone could hold it, is a missing object.
func TestAwaitedBlockers(t *testing.T) {
	member := func(name string, ready bool) *unstructured.Unstructured {
		cond := map[string]any{"type": "Offline", "status": "True", "reason": "ClusterNotReachable", "message": "cluster is not reachable"}
		if ready {
			cond = map[string]any{"type": "Ready", "status": "True"}
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.fleet.example.io/v1", "kind": "MemberCluster",
			"metadata": map[string]any{"name": name, "namespace": "fleet-system"}, "status": map[string]any{"conditions": []any{cond}}}}
	}
	other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "c1", "namespace": "capi"}}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	meta := func(u *unstructured.Unstructured) runtime.Object {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()}, ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace()}}
	}
	explainer := func(objs ...*unstructured.Unstructured) *Explainer {
		var m, d []runtime.Object
		for _, u := range objs {
			m, d = append(m, meta(u)), append(d, u)
		}
		lists := map[schema.GroupVersionResource]string{testMembers.GVR(): "MemberClusterList", testOtherClusters.GVR(): "ClusterList"}
		c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(),
			Metadata: metadatafake.NewSimpleMetadataClient(scheme, m...),
			Dynamic:  dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, d...)}
		return New(c, kinds.NewCatalog([]kinds.Resource{testSpread, testMembers, testOtherClusters}, nil))
	}
	o := subject{res: testSpread, obj: &metav1.ObjectMeta{Name: "nginx", Namespace: "default"}}
	c1 := []awaitedName{{recordedName: recordedName{path: "spec.placement.clusterNames", stem: "cluster", name: "c1"}, source: "event DeleteFailed", quote: "waiting for clusters c1"}}

	t.Run("the member it waits for is not ready", func(t *testing.T) {
		bs, fixes, gaps := explainer(member("c1", false), other).awaitedBlockers(context.Background(), o, c1)
		if len(gaps) > 0 {
			t.Fatalf("gaps: %v", gaps)
		}
		if len(bs) != 1 || bs[0].Object.String() != "memberclusters.core.fleet.example.io/c1 -n fleet-system" || bs[0].Code != ReasonNamedByObject {
			t.Fatalf("blockers = %+v", bs)
		}
		if !strings.Contains(strings.Join(bs[0].Details, " "), "Offline=True (ClusterNotReachable)") {
			t.Errorf("details %q do not say why it is not ready", bs[0].Details)
		}
		r := fixes[0]("deployments.apps/fleet-controller -n fleet-system", "fleet.example.io/cleanup")
		if r.Code != ReasonReadyOrRemoveAwaited || !strings.HasSuffix(r.Command, "-n fleet-system delete memberclusters.core.fleet.example.io c1") {
			t.Errorf("fix = %+v", r)
		}
	})
	t.Run("the member is ready", func(t *testing.T) {
		if bs, _, gaps := explainer(member("c1", true)).awaitedBlockers(context.Background(), o, c1); len(bs)+len(gaps) > 0 {
			t.Fatalf("blockers %+v, gaps %v", bs, gaps)
		}
	})
	t.Run("the member is gone", func(t *testing.T) {
		bs, fixes, _ := explainer(other).awaitedBlockers(context.Background(), o, c1)
		if len(bs) != 1 || bs[0].Object.String() != "memberclusters.core.fleet.example.io/c1" || bs[0].Code != ReasonMissingObject {
			t.Fatalf("blockers = %+v", bs)
		}
		if r := fixes[0]("r", "f"); r.Code != ReasonRestoreMissingObject {
			t.Errorf("fix = %+v", r)
		}
	})
}
