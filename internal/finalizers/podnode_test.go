package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A core Pod is not read in full for its word, but the node its spec names is read for its
// references: a pod on a node that no longer exists has a dangling nodeName; a pod on a node
// that exists, or one not yet scheduled, has none.
func TestDanglingRefsOfAPod(t *testing.T) {
	podsRes := kinds.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "list"}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	node := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: "worker-1"}}
	for _, tc := range []struct {
		name, nodeName, missing string
	}{
		{"on a node that is gone", "ip-10-0-0-9.ec2.internal", "nodes/ip-10-0-0-9.ec2.internal"},
		{"on a node that exists", "worker-1", ""},
		{"never scheduled", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mount-1", Namespace: "kube-system", Finalizers: []string{"example.com/finalizer"}},
				Spec: corev1.PodSpec{NodeName: tc.nodeName, ServiceAccountName: "gone-sa", Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(pod),
				Metadata: metadatafake.NewSimpleMetadataClient(scheme, []runtime.Object{node}...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{podsRes, nodeResource}, nil))
			found, gaps := x.danglingRefs(context.Background(), subject{res: podsRes, obj: &pod.ObjectMeta}, ownWord{})
			if len(gaps) > 0 {
				t.Fatalf("gaps %q", gaps)
			}
			var got []string
			for _, d := range found {
				got = append(got, d.ref.String())
			}
			if strings.Join(got, ",") != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
		})
	}
}

// A `clusterRef` resolves to the group's one kind ending in "cluster" only through kindFor
// (a referent being deleted) and withLooseReferences (marked loose, whose absence is claimed
// with the inference stated); specReferences matches kinds exactly.
func TestLooseKindOnlyForReferents(t *testing.T) {
	cluster := kinds.Resource{Group: "streams.example.io", Version: "v1", Resource: "brokerclusters", Kind: "BrokerCluster", Namespaced: true}
	byKind := map[string]kinds.Resource{"brokercluster": cluster, "topic": {Group: "streams.example.io", Resource: "topics", Kind: "Topic", Namespaced: true}}
	spec := map[string]any{"clusterRef": map[string]any{"name": "c1"}}
	if got := specReferences(spec, byKind, "kafka"); len(got) != 0 {
		t.Errorf("specReferences = %+v, want none: it matches kinds exactly", got)
	}
	got := walkReferences(spec, byKind, "kafka", kindFor)
	if len(got) != 1 || got[0].ref().String() != "brokerclusters.streams.example.io/c1 -n kafka" {
		t.Errorf("walkReferences(kindFor) = %+v, want brokerclusters.streams.example.io/c1 -n kafka", got)
	}
	byKind["mirrorcluster"] = kinds.Resource{Group: "streams.example.io", Resource: "mirrorclusters", Kind: "MirrorCluster", Namespaced: true}
	if got := walkReferences(spec, byKind, "kafka", kindFor); len(got) != 0 {
		t.Errorf("walkReferences(kindFor) = %+v, want none when two kinds end in cluster", got)
	}
}
