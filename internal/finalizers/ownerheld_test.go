package finalizers

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// A finalizer is held for its owner when one of its name's words is the owner's kind or plural,
// whole: a word that merely contains the kind, or a kind named nowhere, is not.
func TestNamesKind(t *testing.T) {
	type in struct{ name, kind, plural string }
	checkAll(t, "namesKind", func(i in) bool { return namesKind(i.name, i.kind, i.plural) }, []expect[in, bool]{
		{in{"starrocks.com.starrockswarehouse/protection", "StarRocksWarehouse", "starrockswarehouses"}, true},
		{in{"example.io/cluster-protection", "Cluster", "clusters"}, true},
		{in{"workers.example.io/cleanup", "Worker", "workers"}, true},
		{in{"kubernetes.io/pvc-protection", "StatefulSet", "statefulsets"}, false},
		{in{"starrocks.com/protection", "StarRocksWarehouse", "starrockswarehouses"}, false},
		{in{"example.io/clusterset-cleanup", "Cluster", "clusters"}, false},
		{in{"redisSentinelFinalizer", "RedisSentinel", "redissentinels"}, false},
	})
}

// Kubernetes' own finalizers and those with an explainer of their own are never taken for a
// product's owner guard, even when a word of theirs is the owner's kind (a Job's pods).
func TestCoreFinalizer(t *testing.T) {
	checkAll(t, "coreFinalizer", coreFinalizer, []expect[string, bool]{
		{"batch.kubernetes.io/job-tracking", true},
		{"kubernetes.io/pvc-protection", true},
		{"foregroundDeletion", true},
		{"example.k8s.io/cleanup", true},
		{"starrocks.com.starrockswarehouse/protection", false},
		{"example.io/cluster-protection", false},
	})
}

// A finalizer held for a live owner: deleting the owner is offered only when the owner carries
// a finalizer of its controller (its teardown runs in order, then removes the held finalizer),
// and then in the background, named so; without one it is not offered, and the strip says why.
func TestApplyOwnerHeldDeletesTheOwnerOnlyWhereItsControllerTearsItDown(t *testing.T) {
	owner := kinds.Resource{Group: "store.example.io", Version: "v1", Resource: "warehouses", Kind: "Warehouse", Namespaced: true, Verbs: []string{"get", "list"}}
	sts := kinds.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true, Verbs: []string{"get", "list"}}
	const held = "store.example.io.warehouse/protection"
	for _, tc := range []struct {
		name       string
		ownerFins  []string
		wantDelete bool
	}{
		{"the owner carries its controller's finalizer", []string{"store.example.io/teardown"}, true},
		{"the owner carries no finalizer", nil, false},
		{"the owner carries only Kubernetes' own", []string{metav1.FinalizerDeleteDependents}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			wh := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "store.example.io/v1", Kind: "Warehouse"},
				ObjectMeta: metav1.ObjectMeta{Name: "wh1", Namespace: "ns", UID: "uid-wh1", Finalizers: tc.ownerFins}}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Metadata: metadatafake.NewSimpleMetadataClient(scheme, wh)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{owner, sts}, nil))
			yes := true
			o := subject{res: sts, obj: &metav1.ObjectMeta{Name: "wh1-cn", Namespace: "ns", UID: "uid-sts", Finalizers: []string{held},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "store.example.io/v1", Kind: "Warehouse", Name: "wh1", UID: "uid-wh1", Controller: &yes}}}}
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", LastResort: true}
			e := &Explanation{Finalizers: []Finalizer{{Name: held, bypass: &strip,
				Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ns", Name: "op"}, Found: true, Healthy: true}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs}, strip}}}}
			x.applyOwnerHeld(context.Background(), o, e)
			f := e.Finalizers[0]
			if len(f.Remedies) == 0 || f.Remedies[0].Code != ReasonStripFinalizer || !strings.Contains(f.WaitsFor, "warehouses.store.example.io/wh1 -n ns") {
				t.Fatalf("remedies %+v, waitsFor %q: want the strip first and the owner named", f.Remedies, f.WaitsFor)
			}
			del := slices.IndexFunc(f.Remedies, func(r Remediation) bool { return r.Code == ReasonRemoveReferrer })
			if !tc.wantDelete {
				if del >= 0 {
					t.Fatalf("deleting the owner offered without its controller's finalizer: %+v", f.Remedies[del])
				}
				if !strings.Contains(f.Remedies[0].Summary, "is not offered: it carries no finalizer of its controller") {
					t.Errorf("strip summary %q does not say why deleting the owner is not offered", f.Remedies[0].Summary)
				}
				return
			}
			if del != 1 {
				t.Fatalf("remedies %+v, want deleting the owner second", f.Remedies)
			}
			d := f.Remedies[del]
			if !strings.Contains(d.Command, "--cascade=background") || strings.Contains(d.Command, "foreground") ||
				!strings.Contains(d.Summary, "store.example.io/teardown") || !strings.Contains(d.Summary, "Not in the foreground") {
				t.Errorf("delete step %+v: want a background deletion that names the owner's finalizer and what a foreground one would skip", d)
			}
		})
	}
}
