package finalizers

import (
	"context"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// sharedTypes are the types whose full lists the explanations of a sweep share, at the
// versions those lists read, and a type no explanation reads in full.
var sharedTypes = []kinds.Resource{
	{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"list"}},
	{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"list"}},
	{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true, Verbs: []string{"list"}},
	{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true, Verbs: []string{"list"}},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", Verbs: []string{"list"}},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", Namespaced: true, Verbs: []string{"list"}},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", Verbs: []string{"list"}},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", Namespaced: true, Verbs: []string{"list"}},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations", Kind: "ValidatingWebhookConfiguration", Verbs: []string{"list"}},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations", Kind: "MutatingWebhookConfiguration", Verbs: []string{"list"}},
	{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition", Verbs: []string{"list"}},
}

// A sweep takes the types an explanation reads in full anyway from those full lists once
// something is stuck (the shared reads started): ten metadata LISTs fewer, the same objects
// seen (a Terminating RoleBinding among them reaches Keep), a namespace's sweep only its own. A
// sweep that has met nothing stuck reads nothing in full and lists every type.
func TestSweepTakesSharedLists(t *testing.T) {
	gone := metav1.Now()
	for _, tc := range []struct {
		name       string
		started    bool
		scope      string
		metaLists  int
		fullLists  int
		bindings   string
		terminated string
	}{
		{name: "shared reads started, cluster-wide", started: true, metaLists: 1, fullLists: 10, bindings: "a/held,b/other,", terminated: "held"},
		{name: "shared reads started, one namespace", started: true, scope: "a", metaLists: 1, fullLists: 7, bindings: "a/held,", terminated: "held"},
		{name: "nothing stuck yet", metaLists: 11, fullLists: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewSimpleClientset(
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "held", DeletionTimestamp: &gone, Finalizers: []string{"example.com/hold"}}},
				&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "other"}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view"}},
				&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}},
				&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "policy"}},
			)
			ext := apiextensionsfake.NewSimpleClientset(&apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"}})
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			meta := metadatafake.NewSimpleMetadataClient(scheme)
			x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kube, APIExtensions: ext, Metadata: meta}, kinds.NewCatalog(sharedTypes, nil))
			x.sharedRead = tc.started
			var mu sync.Mutex
			terminated := ""
			keep := func(r kinds.Resource, m *metav1.PartialObjectMetadata) bool {
				if m.DeletionTimestamp != nil {
					mu.Lock()
					terminated += m.Name
					mu.Unlock()
				}
				return true
			}
			s := Sweep(context.Background(), x.c, x.catalog, ScanOptions{Namespace: tc.scope, Keep: keep, Shared: func(r kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool) {
				return x.sharedList(context.Background(), r)
			}})
			if got := verbs(meta.Actions())["list"]; got != tc.metaLists || len(meta.Actions()) != tc.metaLists {
				t.Errorf("%d metadata LISTs (%d requests), want %d", got, len(meta.Actions()), tc.metaLists)
			}
			full := verbs(kube.Actions())["list"] + verbs(ext.Actions())["list"]
			if full != tc.fullLists {
				t.Errorf("%d full LISTs, want %d", full, tc.fullLists)
			}
			bindings := ""
			for _, ty := range s.Types {
				if ty.Resource.Resource == "rolebindings" {
					for _, it := range ty.Items {
						bindings += it.Namespace + "/" + it.Name + ","
						if it.ManagedFields != nil || it.Kind != "PartialObjectMetadata" {
							t.Errorf("item %s kept as %s with managedFields %v", it.Name, it.Kind, it.ManagedFields)
						}
					}
				}
			}
			if tc.started && bindings != tc.bindings {
				t.Errorf("rolebindings swept %q, want %q", bindings, tc.bindings)
			}
			if terminated != tc.terminated {
				t.Errorf("Keep met Terminating %q, want %q", terminated, tc.terminated)
			}
		})
	}
}

// What the sweep would list last: the types it may take from the shared lists, in their order.
func TestSweepOrderSharedLast(t *testing.T) {
	x := New(&cluster.Clients{Target: cluster.Target{Context: "test"}}, kinds.NewCatalog(sharedTypes, nil))
	order, shared := sweepOrder(sharedTypes, ScanOptions{Shared: func(r kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool) {
		return x.sharedList(context.Background(), r)
	}})
	if order[0] != 0 || shared[0] != nil {
		t.Errorf("configmaps (no shared list) at %d, want first", order[0])
	}
	for _, i := range order[1:] {
		if shared[i] == nil {
			t.Errorf("%s has no shared list", sharedTypes[i].QualifiedName())
		}
	}
	if o, _ := sweepOrder(sharedTypes, ScanOptions{LabelSelector: "a=b", Shared: func(kinds.Resource) func() ([]metav1.PartialObjectMetadata, bool) {
		return func() ([]metav1.PartialObjectMetadata, bool) { return nil, true }
	}}); len(o) != len(sharedTypes) || o[1] != 1 {
		t.Errorf("with a label selector the order changed: %v", o)
	}
}

// In a cluster-wide sweep, whether a namespace is being deleted comes from the sweep's own LIST
// of namespaces: no GET of it. A namespace the LIST did not hold, or a command without such a
// sweep, reads it alone as before.
func TestNamespaceDeletedFromTheSweep(t *testing.T) {
	gone := metav1.Now()
	nsMeta := func(name string, deleted *metav1.Time) runtime.Object {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: name, DeletionTimestamp: deleted}}
	}
	namespaces := []kinds.Resource{{Version: "v1", Resource: "namespaces", Kind: "Namespace", Verbs: []string{"get", "list"}}}
	setup := func(t *testing.T) (*Explainer, *kubefake.Clientset) {
		scheme := metadatafake.NewTestScheme()
		if err := metav1.AddMetaToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		kube := kubefake.NewSimpleClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "late", DeletionTimestamp: &gone}})
		meta := metadatafake.NewSimpleMetadataClient(scheme, nsMeta("going", &gone), nsMeta("staying", nil))
		return New(&cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kube, Metadata: meta}, kinds.NewCatalog(namespaces, nil)), kube
	}
	t.Run("in a sweep", func(t *testing.T) {
		x, kube := setup(t)
		ctx := context.Background()
		Sweep(ctx, x.c, x.catalog, ScanOptions{Listed: x.sweepNamespaces()})
		x.sweptDone()
		if got, gap := x.namespaceDeleted(ctx, "going"); got == nil || !got.Equal(gone.UTC()) || gap.What != "" {
			t.Errorf("going: deleted %v (gap %+v), want %v", got, gap, gone.UTC())
		}
		if got, gap := x.namespaceDeleted(ctx, "staying"); got != nil || gap.What != "" {
			t.Errorf("staying: deleted %v (gap %+v), want nil", got, gap)
		}
		if n := len(kube.Actions()); n != 0 {
			t.Errorf("%d requests for namespaces the sweep listed, want none: %v", n, kube.Actions())
		}
		if got, _ := x.namespaceDeleted(ctx, "late"); got == nil || verbs(kube.Actions())["get"] != 1 {
			t.Errorf("a namespace the sweep did not list: deleted %v after %v, want one GET", got, kube.Actions())
		}
	})
	t.Run("outside a sweep", func(t *testing.T) {
		x, kube := setup(t)
		if got, _ := x.namespaceDeleted(context.Background(), "late"); got == nil || verbs(kube.Actions())["get"] != 1 {
			t.Errorf("deleted %v after %v, want one GET", got, kube.Actions())
		}
	})
}
