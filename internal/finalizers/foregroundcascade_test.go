package finalizers

import (
	"context"
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

// An owner in foreground deletion that waits for the stuck object (a blocking dependent) and
// that nothing in the object's spec names is the cascade reaching the object, not what holds
// its finalizer: no referent-terminating blocker, and the strip is not put first. The same owner
// named by a spec field too stays a blocker (the cleanup runs against it); an owner being
// deleted that does not wait for the object, or whose reference does not block it, is left to
// the rules as before.
func TestForegroundOwnerIsTheCascade(t *testing.T) {
	testCluster := kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "policyclusters", Kind: "PolicyCluster", Verbs: []string{"get", "list"}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	gone := metav1.NewTime(now.Add(-time.Hour))
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		ownerFins []string
		blocks    *bool
		specRef   bool
		blocker   bool
	}{
		{"a foreground owner waiting for the object, named only as owner", []string{metav1.FinalizerDeleteDependents}, &yes, false, false},
		{"the same owner named by the spec too", []string{metav1.FinalizerDeleteDependents}, &yes, true, true},
		{"an owner being deleted with its own finalizer", []string{"policies.example.io/cleanup"}, &yes, false, true},
		{"a foreground owner the object does not block", []string{metav1.FinalizerDeleteDependents}, &no, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "policies.example.io/v1", Kind: "PolicyCluster"},
				ObjectMeta: metav1.ObjectMeta{Name: "c1", UID: types.UID("uid-c1"), Finalizers: tc.ownerFins, DeletionTimestamp: &gone}}
			meta := metadatafake.NewSimpleMetadataClient(scheme, owner)
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: meta,
				Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())}
			x := New(c, kinds.NewCatalog([]kinds.Resource{testServers, testPolicy, testCluster}, nil))
			x.now = now
			obj := &metav1.ObjectMeta{Name: "p", DeletionTimestamp: &gone,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "policies.example.io/v1", Kind: "PolicyCluster", Name: "c1", UID: owner.UID, BlockOwnerDeletion: tc.blocks}}}
			spec := map[string]any{"leader": int64(0)}
			if tc.specRef {
				spec["clusterRef"] = map[string]any{"name": "c1"}
			}
			body := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
			strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}
			logs := Remediation{Code: ReasonReadControllerLogs, Summary: "logs"}
			f := Finalizer{Name: "policies.example.io/cleanup", bypass: &strip,
				Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "policy-controller"}, Found: true, Healthy: true}},
				Remedies:    []Remediation{logs}}
			e := &Explanation{Finalizers: []Finalizer{f}}
			x.applyGoingReferents(context.Background(), subject{res: testPolicy, obj: obj}, e, ownWord{obj: body, conditions: []Condition{{Type: "Ready", Status: "True"}}}, now.Add(-time.Hour))
			got := e.Finalizers[0]
			has := len(got.Blockers) > 0 && got.Blockers[0].Code == ReasonReferentTerminating
			if has != tc.blocker {
				t.Fatalf("blockers %+v: referent-terminating %v, want %v", got.Blockers, has, tc.blocker)
			}
			if !tc.blocker && (len(got.Remedies) != 1 || got.Remedies[0].Code != ReasonReadControllerLogs) {
				t.Fatalf("steps %+v, want the remover's logs untouched and no strip put first", got.Remedies)
			}
		})
	}
}
