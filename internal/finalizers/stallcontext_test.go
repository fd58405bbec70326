package finalizers

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/kubeforensics/suite/internal/cluster"
	"github.com/kubeforensics/suite/internal/kinds"
)

// What surrounds a stalled remover's object, as a table without a control plane: a gone owner
// (kamaji#491: a datastore Secret whose TenantControlPlane is gone) and a namespace being
// deleted (kuberay#3388: a cleanup Job the namespace refuses) become the likeliest reasons, and
// are named in the strip step; an owner that exists and a live namespace add nothing.
func TestStallContextTable(t *testing.T) {
	tcps := kinds.Resource{Group: "kamaji.clastix.io", Version: "v1alpha1", Resource: "tenantcontrolplanes", Kind: "TenantControlPlane", Namespaced: true, Verbs: []string{"get", "list"}}
	secrets := kinds.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true, Verbs: []string{"get", "list"}}
	owner := func(kind, name, uid string) []metav1.OwnerReference {
		yes := true
		return []metav1.OwnerReference{{APIVersion: "kamaji.clastix.io/v1alpha1", Kind: kind, Name: name, UID: types.UID(uid), Controller: &yes}}
	}
	tcp := func(uid string) runtime.Object {
		return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "kamaji.clastix.io/v1alpha1", Kind: "TenantControlPlane"},
			ObjectMeta: metav1.ObjectMeta{Name: "tcp", Namespace: "tenant", UID: types.UID(uid)}}
	}
	live := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant"}}
	now := metav1.Now()
	deleting := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tenant", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}
	for _, tc := range []struct {
		name   string
		owners []metav1.OwnerReference
		meta   []runtime.Object
		ns     *corev1.Namespace
		want   []string // in evidence, reasons and note alike
		first  string   // the first likely reason contains it
	}{
		{"an owner that exists, a live namespace", owner("TenantControlPlane", "tcp", "u1"), []runtime.Object{tcp("u1")}, live, nil, ""},
		{"the owner is gone", owner("TenantControlPlane", "tcp", "u1"), nil, live,
			[]string{"tenantcontrolplanes.kamaji.clastix.io/tcp -n tenant no longer exists"}, "it belongs to tenantcontrolplanes.kamaji.clastix.io/tcp -n tenant"},
		{"the owner was replaced", owner("TenantControlPlane", "tcp", "u1"), []runtime.Object{tcp("u2")}, live,
			[]string{"another uid, u2"}, "it belongs to"},
		{"the owner's type is not served", owner("DataStoreMigration", "m", "u1"), nil, live,
			[]string{"does not serve its type DataStoreMigration.kamaji.clastix.io"}, "it belongs to"},
		{"the namespace is being deleted", nil, nil, deleting,
			[]string{"namespaces/tenant is being deleted"}, "its cleanup has to create something in namespaces/tenant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := metadatafake.NewTestScheme()
			if err := metav1.AddMetaToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := &cluster.Clients{Target: cluster.Target{Context: "test"}, Kube: kubefake.NewSimpleClientset(tc.ns),
				Metadata: metadatafake.NewSimpleMetadataClient(scheme, tc.meta...)}
			x := New(c, kinds.NewCatalog([]kinds.Resource{tcps, secrets}, nil))
			o := subject{res: secrets, obj: &metav1.ObjectMeta{Name: "tcp-datastore-config", Namespace: "tenant", OwnerReferences: tc.owners}}
			ev, reasons, note, gaps := x.stallContext(context.Background(), o, ObjectRef{})
			if len(gaps) > 0 {
				t.Fatalf("gaps: %v", gaps)
			}
			if tc.want == nil {
				if len(ev)+len(reasons) > 0 || note != "" {
					t.Fatalf("evidence %q, reasons %q, note %q, want none", ev, reasons, note)
				}
				return
			}
			all := strings.Join(ev, "\n") + "\n" + note
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("evidence and note %q do not say %q", all, w)
				}
			}
			if len(reasons) == 0 || !strings.Contains(reasons[0], tc.first) {
				t.Errorf("reasons %q, want the first to say %q", reasons, tc.first)
			}
		})
	}
}
