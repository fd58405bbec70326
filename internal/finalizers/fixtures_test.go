package finalizers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apitypes "k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// expect is one row of a table of a function's inputs and the result wanted.
type expect[I any, O comparable] struct {
	in   I
	want O
}

// checkAll runs f, named fn, on every row's input and reports each result that is not the one
// wanted: the shape of the small one-function tables (finalizerDomain, namesKind, ...).
func checkAll[I any, O comparable](t *testing.T, fn string, f func(I) O, rows []expect[I, O]) {
	t.Helper()
	for _, r := range rows {
		if got := f(r.in); got != r.want {
			t.Errorf("%s(%+v) = %v, want %v", fn, r.in, got, r.want)
		}
	}
}

// testPolicyCluster is the cluster-scoped kind of the policies group the referent tests name.
var testPolicyCluster = kinds.Resource{Group: "policies.example.io", Version: "v1", Resource: "policyclusters", Kind: "PolicyCluster", Verbs: []string{"get", "list"}}

// policyClusterMeta is a PolicyCluster with its finalizers, being deleted since deleted when
// that is set.
func policyClusterMeta(name string, deleted *metav1.Time, finalizers ...string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "policies.example.io/v1", Kind: "PolicyCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: apitypes.UID("uid-" + name), Finalizers: finalizers, DeletionTimestamp: deleted}}
}

// metaExplainer is an Explainer over fakes whose metadata client holds objs, with res in its
// catalog: the rules that look up what an object names.
func metaExplainer(t *testing.T, res []kinds.Resource, objs ...runtime.Object) *Explainer {
	t.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: metadatafake.NewSimpleMetadataClient(scheme, objs...)}
	return New(c, kinds.NewCatalog(res, nil))
}

// referentExplainer is an Explainer at now over fakes whose metadata client holds objs, for
// the rules about what the stuck object refers to (servers, policies and their clusters).
func referentExplainer(t *testing.T, now time.Time, objs ...runtime.Object) *Explainer {
	t.Helper()
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(), Metadata: metadatafake.NewSimpleMetadataClient(scheme, objs...),
		Dynamic: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme())}
	x := New(c, kinds.NewCatalog([]kinds.Resource{testServers, testPolicy, testPolicyCluster}, nil))
	x.now = now
	return x
}

// stalledPolicyFinalizer is the explanation of one finalizer of the policies group whose remover
// runs, with the remover's logs as its only step and the generic strip kept for later.
func stalledPolicyFinalizer() *Explanation {
	strip := Remediation{Code: ReasonStripFinalizer, Summary: "strip", Cost: "left behind: whatever the controller would have cleaned up outside the cluster", LastResort: true}
	return &Explanation{Finalizers: []Finalizer{{Name: "policies.example.io/cleanup", bypass: &strip,
		Controllers: []Controller{{Object: ObjectRef{Group: "apps", Resource: "deployments", Namespace: "ops", Name: "policy-controller"}, Found: true, Healthy: true}},
		Remedies:    []Remediation{{Code: ReasonReadControllerLogs, Summary: "logs"}}}}}
}
