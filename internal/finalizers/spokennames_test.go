package finalizers

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
	"github.com/kubeforensics/suite/internal/report"
)

// The controller's own words name what it waits for with a lower-case kind word and a name
// that its spec does not record. Messages from public reports:
//   - kubernetes-retired/kubefed#591 (https://github.com/kubernetes-retired/kubefed/issues/591):
//     `waiting for clusters c1 to become ready to verify that obj default/nginx has been deleted`
//   - redradrat/aws-iam-operator#6 (https://github.com/redradrat/aws-iam-operator/issues/6):
//     `DeleteConflict: Cannot delete entity, must detach all policies first.` (a kind word and
//     no name: nothing to resolve)
func TestSpokenObjects(t *testing.T) {
	testPolicies := kinds.Resource{Group: "types.fleet.example.io", Version: "v1", Resource: "policies", Kind: "Policy", Namespaced: true, Verbs: []string{"get", "list"}}
	member := func(name, ns string, ready bool) *unstructured.Unstructured {
		cond := map[string]any{"type": "Offline", "status": "True", "reason": "ClusterNotReachable", "message": "cluster is not reachable"}
		if ready {
			cond = map[string]any{"type": "Ready", "status": "True"}
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.fleet.example.io/v1", "kind": "MemberCluster",
			"metadata": map[string]any{"name": name, "namespace": ns}, "status": map[string]any{"conditions": []any{cond}}}}
	}
	otherC1 := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cluster.x-k8s.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "c1", "namespace": "capi"}}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	explainer := func(objs ...*unstructured.Unstructured) *Explainer {
		var m, d []runtime.Object
		for _, u := range objs {
			m = append(m, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()},
				ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace()}})
			d = append(d, u)
		}
		lists := map[schema.GroupVersionResource]string{testMembers.GVR(): "MemberClusterList", testOtherClusters.GVR(): "ClusterList", testPolicies.GVR(): "PolicyList"}
		c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(),
			Metadata: metadatafake.NewSimpleMetadataClient(scheme, m...),
			Dynamic:  dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, d...)}
		return New(c, kinds.NewCatalog([]kinds.Resource{testSpread, testMembers, testOtherClusters, testPolicies}, nil))
	}
	o := subject{res: testSpread, obj: &metav1.ObjectMeta{Name: "nginx", Namespace: "default"}}
	const kubefed = `Failed to delete SpreadDeployment "default/nginx": waiting for clusters c1 to become ready to verify that obj default/nginx has been deleted`
	word := func(spec map[string]any, status map[string]any, events ...Event) ownWord {
		return ownWord{events: events, obj: &unstructured.Unstructured{Object: map[string]any{"spec": spec, "status": status}}}
	}
	deleteFailed := Event{Type: "Warning", Reason: "DeleteFailed", Message: kubefed}

	for _, tc := range []struct {
		name    string
		objs    []*unstructured.Unstructured
		w       ownWord
		named   string // namespace/name of the named objects, space-separated
		gap     report.GapReason
		gapWord string
	}{
		{name: "the member the event names is not ready", objs: []*unstructured.Unstructured{member("c1", "fleet-system", false), otherC1},
			w: word(nil, nil, deleteFailed), named: "fleet-system/c1"},
		{name: "the member is ready", objs: []*unstructured.Unstructured{member("c1", "fleet-system", true)},
			w: word(nil, nil, deleteFailed)},
		{name: "no member of that name", objs: []*unstructured.Unstructured{otherC1},
			w: word(nil, nil, deleteFailed), gap: report.GapNotFound, gapWord: `names clusters c1`},
		{name: "two members of that name", objs: []*unstructured.Unstructured{member("c1", "east", false), member("c1", "west", false)},
			w: word(nil, nil, deleteFailed), gap: report.GapUnsupported, gapWord: "namespaces east, west"},
		{name: "the spec records the name: left to the awaited-names rule", objs: []*unstructured.Unstructured{member("c1", "fleet-system", false)},
			w: word(map[string]any{"placement": map[string]any{"clusterNames": []any{"c1"}}}, nil, deleteFailed)},
		{name: "a message that speaks of no wait", objs: []*unstructured.Unstructured{member("c1", "fleet-system", false)},
			w: word(nil, nil, Event{Type: "Normal", Reason: "Scheduled", Message: "placed on clusters c1"})},
		{name: "status.message: a kind word and no name", objs: []*unstructured.Unstructured{member("c1", "fleet-system", false)},
			w: word(nil, map[string]any{"message": "DeleteConflict: Cannot delete entity, must detach all policies first.\n\tstatus code: 409"})},
		{name: "status.message names a policy", objs: []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": "types.fleet.example.io/v1", "kind": "Policy",
			"metadata": map[string]any{"name": "read-s3", "namespace": "default"}}}},
			w: word(nil, map[string]any{"message": "DeleteConflict: must detach policies default/read-s3 first"}), named: "default/read-s3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gaps := explainer(tc.objs...).spokenObjects(context.Background(), o, tc.w)
			var named []string
			for _, n := range got {
				named = append(named, n.namespace+"/"+n.name)
			}
			if strings.Join(named, " ") != tc.named {
				t.Errorf("named %q, want %q", named, tc.named)
			}
			switch {
			case tc.gap == "" && len(gaps) > 0:
				t.Errorf("gaps %v, want none", gaps)
			case tc.gap != "" && (len(gaps) != 1 || gaps[0].Reason != tc.gap || !strings.Contains(gaps[0].What, tc.gapWord)):
				t.Errorf("gaps %+v, want one %s saying %q", gaps, tc.gap, tc.gapWord)
			}
		})
	}
}

func TestSpokenKind(t *testing.T) {
	x := New(&cluster.Clients{}, kinds.NewCatalog([]kinds.Resource{testSpread, testMembers, testOtherClusters}, nil))
	for _, tc := range []struct {
		word, want string
	}{
		{"clusters", "MemberCluster"},
		{"cluster", "MemberCluster"},
		{"Clusters", ""}, // a capitalised word is read by the kind-and-name rule
		{"deployments", "SpreadDeployment"},
		{"members", ""}, // no kind of the product ends in it
		{"set", ""},     // under four letters
		{"the", ""},
	} {
		res, ok := x.spokenKind(testSpread.Group, tc.word)
		if got := map[bool]string{true: res.Kind}[ok]; got != tc.want {
			t.Errorf("spokenKind(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// A finalizer whose remover runs and whose object's own event names, in its words, a member
// that no object holds is UNKNOWN (the name among its incomplete reads), never "nothing holds
// it"; a member that is not ready is its blocker, named with the words that name it.
func TestSpokenNamesInTheReferrerSearch(t *testing.T) {
	offline := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.fleet.example.io/v1", "kind": "MemberCluster",
		"metadata": map[string]any{"name": "c1", "namespace": "fleet-system"},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "ClusterNotReachable"}}}}}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	explainer := func(objs ...*unstructured.Unstructured) *Explainer {
		var m, d []runtime.Object
		for _, u := range objs {
			m = append(m, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()},
				ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace()}})
			d = append(d, u)
		}
		lists := map[schema.GroupVersionResource]string{testMembers.GVR(): "MemberClusterList", testSpread.GVR(): "SpreadDeploymentList"}
		c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), APIExtensions: apiextensionsfake.NewSimpleClientset(),
			Metadata: metadatafake.NewSimpleMetadataClient(scheme, m...),
			Dynamic:  dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, d...)}
		return New(c, kinds.NewCatalog([]kinds.Resource{testSpread, testMembers}, nil))
	}
	o := subject{res: testSpread, obj: &metav1.ObjectMeta{Name: "nginx", Namespace: "default", UID: "u-1"}}
	w := ownWord{obj: &unstructured.Unstructured{Object: map[string]any{}}, events: []Event{{Type: "Warning", Reason: "DeleteFailed",
		Message: `Failed to delete SpreadDeployment "default/nginx": waiting for clusters c1 to become ready to verify that obj default/nginx has been deleted`}}}
	explanation := func() *Explanation {
		return &Explanation{Finalizers: []Finalizer{{Name: "fleet.example.io/cleanup",
			Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "fleet-system", Name: "fleet-controller"}, Found: true, Healthy: true}}}}}
	}

	t.Run("a member that is not ready", func(t *testing.T) {
		e := explanation()
		explainer(offline).applyReferrers(context.Background(), o, e, w)
		f := e.Finalizers[0]
		if len(f.Blockers) != 1 || f.Blockers[0].Object.String() != "memberclusters.core.fleet.example.io/c1 -n fleet-system" || f.Blockers[0].Code != ReasonNamedByObject {
			t.Fatalf("blockers %+v", f.Blockers)
		}
		if !strings.Contains(f.Blockers[0].Reason, "event DeleteFailed") {
			t.Errorf("reason %q does not say which words name it", f.Blockers[0].Reason)
		}
	})
	t.Run("a member no object holds", func(t *testing.T) {
		e := explanation()
		explainer().applyReferrers(context.Background(), o, e, w)
		f := e.Finalizers[0]
		if len(f.Blockers) != 0 {
			t.Fatalf("blockers %+v: an unresolved name is no blocker", f.Blockers)
		}
		if len(f.Incomplete) != 1 || f.Incomplete[0].Reason != report.GapNotFound || !strings.Contains(f.Incomplete[0].What, "waiting for clusters c1") {
			t.Fatalf("incomplete %+v: the unresolved words make the finalizer UNKNOWN", f.Incomplete)
		}
	})
}

// TestSpeaksOfWaitingInProse: a waiting word inside a name is not the controller speaking of
// waiting. helm-controller's "Helm upgrade succeeded for release fc-deleting-hr/podinfo.v2"
// (a namespace named fc-deleting-hr) made a Ready=True condition read as waiting for a release
// podinfo.v2, and the HelmRelease's explanation incomplete (flux-chain's
// TestDeletingHelmReleaseDrawnOnce).
func TestSpeaksOfWaitingInProse(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"Helm upgrade succeeded for release fc-deleting-hr/podinfo.v2 with chart podinfo@6.7.1", false},
		{"reconciled blocked-apps-1 in namespace still-here", false},
		{"waiting for clusters c1", true},
		{"still used by routes web-1", true},
		{"cannot be deleted while policies are attached", true},
	} {
		if got := speaksOfWaiting(tc.msg); got != tc.want {
			t.Errorf("speaksOfWaiting(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}

func TestClipCutsAtAWholeCharacter(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"ab\u00e9cd", 3, "ab…"},             // é is two bytes; byte 3 is its second
		{"\u65e5\u672c\u8a9e", 4, "\u65e5…"}, // three bytes each
		{"\u65e5\u672c", 2, "…"},
	} {
		if got := clip(c.in, c.n); got != c.want {
			t.Errorf("clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if got := clip(c.in, c.n); !utf8.ValidString(got) {
			t.Errorf("clip(%q, %d) = %q: not valid UTF-8", c.in, c.n, got)
		}
	}
}
