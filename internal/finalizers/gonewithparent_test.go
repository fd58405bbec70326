package finalizers

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// When what the stuck object belongs to is being deleted, an object its spec names by a typed
// reference (kind, name and group stated, under any field name) that no longer exists went with
// that teardown: a missing-object blocker with no "create it again", named in the strip's
// summary. The same reference is no blocker while it exists, nor when the object being deleted
// is one it merely refers to rather than its parent.
func TestGoneWithParent(t *testing.T) {
	pool := kinds.Resource{Group: "pools.example.io", Version: "v1", Resource: "pools", Kind: "Pool", Namespaced: true, Verbs: []string{"get", "list"}}
	fleet := kinds.Resource{Group: "pools.example.io", Version: "v1", Resource: "fleets", Kind: "Fleet", Namespaced: true, Verbs: []string{"get", "list"}}
	infra := kinds.Resource{Group: "infra.example.io", Version: "v1", Resource: "infrapools", Kind: "InfraPool", Namespaced: true, Verbs: []string{"get", "list"}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	parent := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "pools.example.io/v1", Kind: "Fleet"},
		ObjectMeta: metav1.ObjectMeta{Name: "f1", Namespace: "ns", UID: types.UID("uid-f1"), DeletionTimestamp: &gone, Finalizers: []string{"pools.example.io/fleet"}}}
	infraObj := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "infra.example.io/v1", Kind: "InfraPool"},
		ObjectMeta: metav1.ObjectMeta{Name: "p-infra", Namespace: "ns"}}
	const missing = "infrapools.infra.example.io/p-infra -n ns"
	for _, tc := range []struct {
		name       string
		owned      bool
		infraThere bool
		want       bool // the gone infrastructure object is a blocker
	}{
		{"the parent is being deleted and the typed referent is gone", true, false, true},
		{"the parent is being deleted and the typed referent exists", true, true, false},
		{"a referent that is not its parent is being deleted", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []runtime.Object{parent}
			if tc.infraThere {
				objs = append(objs, infraObj)
			}
			meta := metadatafake.NewSimpleMetadataClient(scheme, objs...)
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: meta,
				Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())}
			x := New(c, kinds.NewCatalog([]kinds.Resource{pool, fleet, infra}, nil))
			x.now = now
			obj := &metav1.ObjectMeta{Name: "p", Namespace: "ns", DeletionTimestamp: &gone}
			if tc.owned {
				obj.OwnerReferences = []metav1.OwnerReference{{APIVersion: "pools.example.io/v1", Kind: "Fleet", Name: "f1", UID: parent.UID}}
			}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
				"fleetName": "f1",
				"template": map[string]any{"spec": map[string]any{
					"infrastructureRef": map[string]any{"apiVersion": "infra.example.io/v1", "kind": "InfraPool", "name": "p-infra", "namespace": "ns"}}}}}}
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}
			f := Finalizer{Name: "pools.example.io/pool", bypass: &strip,
				Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "pool-controller"}, Found: true, Healthy: true}},
				Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}}}
			e := &Explanation{Finalizers: []Finalizer{f}}
			x.applyGoingReferents(context.Background(), subject{res: pool, obj: obj}, e, ownWord{obj: body}, now.Add(-time.Hour))
			got := e.Finalizers[0]
			if len(got.Blockers) == 0 || got.Blockers[0].Code != ReasonReferentTerminating {
				t.Fatalf("blockers %+v, want the fleet being deleted first", got.Blockers)
			}
			named := false
			for _, b := range got.Blockers[1:] {
				if b.Object.String() == missing && b.Code == ReasonMissingObject && strings.Contains(b.Reason, "spec.template.spec.infrastructureRef") {
					named = true
				} else {
					t.Errorf("unexpected blocker %+v", b)
				}
			}
			if named != tc.want {
				t.Fatalf("the gone %s named %v, want %v (blockers %+v)", missing, named, tc.want, got.Blockers)
			}
			for _, r := range got.Remedies {
				if r.Code == ReasonRestoreMissingObject {
					t.Errorf("step %q: a referent gone with its parent is never to be created again", r.Summary)
				}
			}
			if len(got.Remedies) != 2 || got.Remedies[0].Code != ReasonStripFinalizer || got.Remedies[1].Code != ReasonReadControllerLogs {
				t.Fatalf("steps %+v, want the strip first and the logs last", got.Remedies)
			}
			if says := strings.Contains(got.Remedies[0].Summary, "gone already ("+missing+")"); says != tc.want {
				t.Errorf("strip %q names the gone referent %v, want %v", got.Remedies[0].Summary, says, tc.want)
			}
		})
	}
}

// A list of provider ids (a node pool's `providerIDList`) records one cloud instance per entry,
// which the strip's cost names.
func TestRecordedProviderIDList(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"providerIDList": []any{"aws:///eu-west-1a/i-0c2f7d41e9a8b3605", "aws:///eu-west-1b/i-07e1a93b5d2c4f816"},
		"replicas":       int64(2)}}}
	got := strings.Join(recordedResources(obj), "; ")
	for _, want := range []string{"cloud instance aws:///eu-west-1a/i-0c2f7d41e9a8b3605 (spec.providerIDList)", "cloud instance aws:///eu-west-1b/i-07e1a93b5d2c4f816 (spec.providerIDList)"} {
		if !strings.Contains(got, want) {
			t.Errorf("recorded %q, want it to name %q", got, want)
		}
	}
}
